package dataapi_test

import "strings"

// The boards' hand-built history (now = 2026-09-15T12:00Z, a Tuesday):
//
//	09-05 02:00  B splits 1000 M1 (YES/NO at 0.5)
//	09-05 12:00  A buys 100 M1 YES from B at 0.4 (builder BC1)       B realizes −10
//	09-12 12:00  C buys 200 M1 NO from B at 0.5 (builder BC2)        B realizes 0
//	09-15 10:00  B splits 1000 M2
//	09-15 10:36  D buys 100 of combo X1 (M1 YES & M3 YES) at 0.2
//	09-15 10:53  A splits 10 M3 (esports)
//	09-15 11:00  A buys 50 M2 YES from B at 0.3 (BC1)                B realizes −10
//	09-15 11:01  A sells 50 M1 YES to C at 0.7 (BC1)                 A realizes 15
//	09-15 11:10  D deposits 50 (a flow, not PnL)
//	             M1 resolves YES at 11:30, M3 YES at 11:31
//	09-15 11:43  A redeems M1 (50 YES → 50)                          A realizes 30
//	09-15 11:51  D redeems the combo: 100 → 100                      D realizes 80
//
// Economic PnL now (realized + unrealized at current marks): A 45, B 40
// (−20 realized; M1 YES 900@0.5→1 +450, NO 800@0.5→0 −400, M2 YES 950@0.5
// at 0.3 −190, NO 1000@0.5 at 0.7 +200), C −85 (NO −100, YES +15), D 80.
// At the close of the last day each was active before today: A 0 (09-05),
// B −10 (09-12), C 0 (09-12), D none.
const boardsLedger = `
{"kind":"builder","code":"{BC1}","name":"betmoar","profile_image":"https://img/betmoar.png","verified":true}
{"kind":"market","condition_id":"{M1}","question":"Will Lions win?","slug":"lions","event_id":100,"event_slug":"lions-vs-hawks","event_title":"Lions vs. Hawks","category":"sports","outcomes":["Yes","No"],"token_ids":["11","12"],"end_date":"2026-09-15T00:00:00Z"}
{"kind":"market","condition_id":"{M2}","question":"Will the bill pass?","slug":"bill","event_id":200,"event_slug":"the-bill","event_title":"The bill","category":"politics","outcomes":["Yes","No"],"token_ids":["21","22"],"end_date":"2026-12-01T00:00:00Z"}
{"kind":"market","condition_id":"{M3}","question":"Will Team Liquid win?","slug":"liquid","event_id":300,"event_slug":"liquid-vs-navi","event_title":"Liquid vs. NaVi","category":"esports","outcomes":["Yes","No"],"token_ids":["31","32"],"end_date":"2026-09-15T00:00:00Z"}
{"kind":"profile","address":"{A}","name":"Alice","profile_image":"https://img/a.png","verified":true}
{"kind":"profile","address":"{B}","pseudonym":"Brave-Owl"}
{"kind":"profile","address":"{W5}","name":"Eve"}
{"kind":"combo_market","combo_condition_id":"{X1}","outcomes":["Yes","No"],"token_ids":["9001","9002"],"legs":[{"condition_id":"{M1}","outcome_index":0},{"condition_id":"{M3}","outcome_index":0}]}
{"kind":"split","tx_hash":"{H1}","log_index":0,"block_number":10,"timestamp":{T-900000},"user":"{B}","condition_id":"{M1}","amount":"1000"}
{"kind":"trade","tx_hash":"{H2}","log_index":0,"block_number":11,"timestamp":{T-864000},"token_id":"11","maker":"{B}","taker":"{A}","side":"BUY","price":"0.4","size":"100","builder_code":"{BC1}"}
{"kind":"trade","tx_hash":"{H3}","log_index":0,"block_number":20,"timestamp":{T-259200},"token_id":"12","maker":"{B}","taker":"{C}","side":"BUY","price":"0.5","size":"200","builder_code":"{BC2}"}
{"kind":"split","tx_hash":"{H4}","log_index":0,"block_number":30,"timestamp":{T-7200},"user":"{B}","condition_id":"{M2}","amount":"1000"}
{"kind":"combo_trade","tx_hash":"{H5}","log_index":0,"block_number":31,"timestamp":{T-5000},"user":"{D}","combo_condition_id":"{X1}","outcome_index":0,"side":"BUY","price":"0.2","size":"100"}
{"kind":"split","tx_hash":"{H6}","log_index":0,"block_number":32,"timestamp":{T-4000},"user":"{A}","condition_id":"{M3}","amount":"10"}
{"kind":"trade","tx_hash":"{H7}","log_index":0,"block_number":33,"timestamp":{T-3600},"token_id":"21","maker":"{B}","taker":"{A}","side":"BUY","price":"0.3","size":"50","builder_code":"{BC1}"}
{"kind":"trade","tx_hash":"{H8}","log_index":0,"block_number":34,"timestamp":{T-3540},"token_id":"11","maker":"{C}","taker":"{A}","side":"SELL","price":"0.7","size":"50","builder_code":"{BC1}"}
{"kind":"deposit","tx_hash":"{H9}","log_index":0,"block_number":35,"timestamp":{T-3000},"user":"{D}","amount_usdc":"50"}
{"kind":"resolution","condition_id":"{M1}","payouts":["1","0"],"resolved_at":{T-1800}}
{"kind":"resolution","condition_id":"{M3}","payouts":["1","0"],"resolved_at":{T-1740}}
{"kind":"redeem","tx_hash":"{H10}","log_index":0,"block_number":40,"timestamp":{T-1000},"user":"{A}","condition_id":"{M1}"}
{"kind":"combo_activity","tx_hash":"{H11}","log_index":0,"block_number":41,"timestamp":{T-500},"user":"{D}","combo_condition_id":"{X1}","outcome_index":0,"type":"REDEEM","size":"100","payout_usdc":"100"}
`

func init() {
	vars["{W5}"] = "0x00000000000000000000000000000000000000e5" // a profile, no events
	vars["{W6}"] = "0x00000000000000000000000000000000000000f6" // never seen
	vars["{BC1}"] = "0x" + strings.Repeat("b1", 32)
	vars["{BC2}"] = "0x" + strings.Repeat("b2", 32)
}

// Window starts at the harness's now: today, 6 and 29 days before.
var (
	dayStart   = now - now%day
	weekStart  = dayStart - 6*day
	monthStart = dayStart - 29*day
)
