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
	handleTopics = strings.Fields(`trades bets capital quant macro alpha fx odds edge picks markets research
		sports crypto polls whale punts value`)
	awards = []string{"Best Picture", "Best Director", "Best Actress", "Best Actor", "Best Original Score",
		"Best Animated Feature", "Best Documentary"}
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

// userName makes a handle as people pick them: "maya92", "jnakamura",
// "omar_trades", "quietfalcon", "petrovcapital".
func userName(r *rand.Rand) string {
	first, last := strings.ToLower(pick(r, firstNames)), strings.ToLower(pick(r, lastNames))
	switch r.IntN(6) {
	case 0:
		return fmt.Sprintf("%s%02d", first, (70+r.IntN(40))%100) // a birth year
	case 1:
		return first[:1] + last
	case 2:
		return first + pick(r, []string{"_", ".", ""}) + pick(r, handleTopics)
	case 3:
		return strings.ToLower(pick(r, adjectives) + pick(r, nouns))
	case 4:
		return last + pick(r, []string{"capital", "research", "trades", "fund"})
	}
	return first + "_" + last[:1+r.IntN(3)]
}

func personName(r *rand.Rand) string { return pick(r, firstNames) + " " + pick(r, lastNames) }
