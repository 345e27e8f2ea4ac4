package demo

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Word lists for pseudonyms ("Scary-Barrel"), user names and market text.
var (
	adjectives = strings.Fields(`Scary Brave Quiet Lucky Shiny Rapid Sleepy Clever Dusty Gentle Bold Calm Crimson
		Frosty Golden Hidden Icy Jolly Kind Lively Mellow Nimble Odd Proud Rusty Silent Tidy Upbeat Vivid Wild
		Zesty Amber Bitter Cosmic Daring Eager Fuzzy Grim Hasty Ivory Jade Keen Lunar Misty Noble Oaken Polar
		Quirky Royal Salty Tangy Urban Velvet Witty Young Zany Arctic Breezy Candid`)
	nouns = strings.Fields(`Barrel Falcon Otter Comet Lantern Maple Pebble Rocket Walrus Badger Cactus Dingo
		Ember Ferret Glacier Harbor Igloo Jackal Kettle Lemur Magnet Nugget Orchid Panda Quokka Raven Saddle
		Tiger Umbrella Violin Wombat Yak Zephyr Anchor Bison Cobra Dolphin Eagle Fjord Gecko Heron Iris Jaguar
		Koala Llama Moose Narwhal Owl Parrot Quill Rhino Sparrow Toucan Urchin Viper Willow`)
	syllables  = strings.Fields(`ja boo bel ite max ro ka zen tri vo lu mi pa ko shi ra dex nu fi lo gar ton bit`)
	firstNames = strings.Fields(`Alice Bruno Carla Dmitri Elena Farid Grace Hiro Ines Jonas Kemi Luca Maya Nadia
		Omar Priya Quinn Rafael Sofia Tomas Uma Victor Wen Ximena Yusuf Zara`)
	lastNames = strings.Fields(`Abbott Brennan Castillo Duarte Eriksen Fontaine Garza Halvorsen Ibarra Jensen
		Kowalski Lindqvist Moreau Nakamura Okafor Petrov Quintero Rossi Sandoval Tanaka Ulrich Vance Whitaker`)
	places = strings.Fields(`Ohio Texas Florida Georgia Arizona Nevada Michigan Oregon Virginia Colorado
		Ontario Bavaria Catalonia Lisbon Santiago Osaka Lagos Mumbai Quebec Victoria`)
	teams = strings.Fields(`Lions Hawks Sharks Wolves Bears Comets Rangers Titans Vipers Storm Falcons Knights
		Pirates Royals Stallions Raptors Giants Mariners Bulls Dragons Foxes Owls Jets Rockets`)
	cities = strings.Fields(`Dallas Karachi Seoul Madrid Chicago Toronto Sydney Cairo Denver Lima Oslo Austin
		Miami Paris Tokyo Nairobi Phoenix Boston Jakarta Dubai`)
	esportsTeams = strings.Fields(`Nexus Voltage Phantom Apex Eclipse Vortex Zenith Onyx Spectre Nova Pulse
		Havoc Cipher Rogue Titanfall Mirage Blitz Quantum`)
	games   = []string{"Counter-Strike", "League of Legends", "Dota 2", "Valorant"}
	coins   = []string{"Bitcoin", "Ethereum", "Solana", "XRP", "Dogecoin"}
	artists = strings.Fields(`Aurora Benson Cleo Drake Echo Fable Gemma Harlow Indigo Juno`)
	films   = []string{"The Last Orchard", "Glass Harbor", "Northern Lights", "Paper Kingdoms", "The Quiet Year",
		"Iron Meridian", "Small Hours", "Salt and Signal"}
)

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// pickN returns n distinct elements of xs in random order.
func pickN[T any](r *rand.Rand, xs []T, n int) []T {
	idx := r.Perm(len(xs))[:n]
	out := make([]T, n)
	for i, j := range idx {
		out[i] = xs[j]
	}
	return out
}

func pseudonym(r *rand.Rand) string { return pick(r, adjectives) + "-" + pick(r, nouns) }

// userName makes a handle like "jaboobelite" or "maxro42".
func userName(r *rand.Rand) string {
	var b strings.Builder
	for n := 2 + r.IntN(3); n > 0; n-- {
		b.WriteString(pick(r, syllables))
	}
	if r.IntN(3) == 0 {
		fmt.Fprintf(&b, "%d", r.IntN(1000))
	}
	return b.String()
}

func personName(r *rand.Rand) string { return pick(r, firstNames) + " " + pick(r, lastNames) }
