package catalog

// Market is one binary (or multi-outcome) market, an element of an event's
// markets. liquidity, volume and fee are decimal strings beside the numeric
// twins liquidityNum/volumeNum; outcomes, outcomePrices, clobTokenIds,
// shortOutcomes, pastSlugs and oracleResolutionStatuses are JSON arrays
// encoded inside a string. marketMakerAddress is always a string ("" when
// none). Live fields are overwritten at read time (see live.go).
type Market struct {
	// strings
	ID                       Str     `json:"id"`
	Question                 *string `json:"question"`
	ConditionID              *string `json:"conditionId"`
	Slug                     *string `json:"slug"`
	SocialCardImage          *string `json:"socialCardImage"`
	ResolutionSource         *string `json:"resolutionSource"`
	Category                 *string `json:"category"`
	Liquidity                *Str    `json:"liquidity"`
	SponsorName              *string `json:"sponsorName"`
	SponsorImage             *string `json:"sponsorImage"`
	XAxisValue               *string `json:"xAxisValue"`
	YAxisValue               *string `json:"yAxisValue"`
	DenominationToken        *string `json:"denominationToken"`
	Fee                      *Str    `json:"fee"`
	Image                    *string `json:"image"`
	Icon                     *string `json:"icon"`
	LowerBound               *Str    `json:"lowerBound"`
	UpperBound               *Str    `json:"upperBound"`
	Description              *string `json:"description"`
	Outcomes                 *string `json:"outcomes"`
	OutcomePrices            *string `json:"outcomePrices"`
	Volume                   *Str    `json:"volume"`
	MarketType               *string `json:"marketType"`
	FormatType               *string `json:"formatType"`
	LowerBoundDate           *string `json:"lowerBoundDate"`
	UpperBoundDate           *string `json:"upperBoundDate"`
	MarketMakerAddress       string  `json:"marketMakerAddress"`
	ClosedTime               *string `json:"closedTime"`
	MailTag                  *string `json:"mailTag"`
	ResolvedBy               *string `json:"resolvedBy"`
	GroupItemTitle           *string `json:"groupItemTitle"`
	GroupItemThreshold       *Str    `json:"groupItemThreshold"`
	QuestionID               *string `json:"questionID"`
	OracleEndDate            *string `json:"oracleEndDate"`
	OracleResolutionStatus   *string `json:"oracleResolutionStatus"`
	OracleResolutionStatuses *string `json:"oracleResolutionStatuses"`
	EndDateIso               *string `json:"endDateIso"`
	StartDateIso             *string `json:"startDateIso"`
	OracleEndDateIso         *string `json:"oracleEndDateIso"`
	GameStartTime            *string `json:"gameStartTime"`
	Version                  *string `json:"version"`
	ClobTokenIds             *string `json:"clobTokenIds"`
	CommentThread            *string `json:"commentThread"`
	ShortOutcomes            *string `json:"shortOutcomes"`
	TeamAID                  *string `json:"teamAID"`
	TeamBID                  *string `json:"teamBID"`
	OracleBond               *Str    `json:"oracleBond"`
	OracleReward             *Str    `json:"oracleReward"`
	Creator                  *string `json:"creator"`
	PastSlugs                *string `json:"pastSlugs"`
	ChartColor               *string `json:"chartColor"`
	SeriesColor              *string `json:"seriesColor"`
	GameID                   *Str    `json:"gameId"`
	GroupItemRange           *string `json:"groupItemRange"`
	SportsMarketType         *string `json:"sportsMarketType"`
	// extras production sends and the official client reads
	NegRiskMarketID  *string `json:"negRiskMarketID"`
	NegRiskRequestID *string `json:"negRiskRequestID"`
	FeeType          *string `json:"feeType"`

	// date-times
	EndDate                      *string `json:"endDate"`
	StartDate                    *string `json:"startDate"`
	CreatedAt                    *string `json:"createdAt"`
	UpdatedAt                    *string `json:"updatedAt"`
	ReadyTimestamp               *string `json:"readyTimestamp"`
	FundedTimestamp              *string `json:"fundedTimestamp"`
	AcceptingOrdersTimestamp     *string `json:"acceptingOrdersTimestamp"`
	DeployingTimestamp           *string `json:"deployingTimestamp"`
	ScheduledDeploymentTimestamp *string `json:"scheduledDeploymentTimestamp"`
	EventStartTime               *string `json:"eventStartTime"`

	// booleans
	Active                bool `json:"active"`
	Closed                bool `json:"closed"`
	WideFormat            bool `json:"wideFormat"`
	New                   bool `json:"new"`
	Featured              bool `json:"featured"`
	Archived              bool `json:"archived"`
	Restricted            bool `json:"restricted"`
	EnableOrderBook       bool `json:"enableOrderBook"`
	HasReviewedDates      bool `json:"hasReviewedDates"`
	ReadyForCron          bool `json:"readyForCron"`
	CommentsEnabled       bool `json:"commentsEnabled"`
	AcceptingOrders       bool `json:"acceptingOrders"`
	NotificationsEnabled  bool `json:"notificationsEnabled"`
	Ready                 bool `json:"ready"`
	Funded                bool `json:"funded"`
	AutomaticallyResolved bool `json:"automaticallyResolved"`
	AutomaticallyActive   bool `json:"automaticallyActive"`
	ClearBookOnStart      bool `json:"clearBookOnStart"`
	ShowGmpSeries         bool `json:"showGmpSeries"`
	ShowGmpOutcome        bool `json:"showGmpOutcome"`
	ManualActivation      bool `json:"manualActivation"`
	NegRiskOther          bool `json:"negRiskOther"`
	PendingDeployment     bool `json:"pendingDeployment"`
	Deploying             bool `json:"deploying"`
	RfqEnabled            bool `json:"rfqEnabled"`
	FeesEnabled           bool `json:"feesEnabled"`
	NegRisk               bool `json:"negRisk"` // extra: production sends it
	Cyom                  bool `json:"cyom"`    // extra: production sends it

	// numbers
	CreatedBy             *Num `json:"createdBy"`
	UpdatedBy             *Num `json:"updatedBy"`
	MarketGroup           *Num `json:"marketGroup"`
	OrderPriceMinTickSize *Num `json:"orderPriceMinTickSize"`
	OrderMinSize          *Num `json:"orderMinSize"`
	CurationOrder         *Num `json:"curationOrder"`
	VolumeNum             *Num `json:"volumeNum"`
	LiquidityNum          *Num `json:"liquidityNum"`
	Volume24hr            *Num `json:"volume24hr"`
	Volume1wk             *Num `json:"volume1wk"`
	Volume1mo             *Num `json:"volume1mo"`
	Volume1yr             *Num `json:"volume1yr"`
	SecondsDelay          *Num `json:"secondsDelay"`
	Volume24hrClob        *Num `json:"volume24hrClob"`
	Volume1wkClob         *Num `json:"volume1wkClob"`
	Volume1moClob         *Num `json:"volume1moClob"`
	Volume1yrClob         *Num `json:"volume1yrClob"`
	VolumeClob            *Num `json:"volumeClob"`
	LiquidityClob         *Num `json:"liquidityClob"`
	MakerBaseFee          *Num `json:"makerBaseFee"`
	TakerBaseFee          *Num `json:"takerBaseFee"`
	CustomLiveness        *Num `json:"customLiveness"`
	Score                 *Num `json:"score"`
	Competitive           *Num `json:"competitive"`
	RewardsMinSize        *Num `json:"rewardsMinSize"`
	RewardsMaxSpread      *Num `json:"rewardsMaxSpread"`
	Spread                *Num `json:"spread"`
	OneDayPriceChange     *Num `json:"oneDayPriceChange"`
	OneHourPriceChange    *Num `json:"oneHourPriceChange"`
	OneWeekPriceChange    *Num `json:"oneWeekPriceChange"`
	OneMonthPriceChange   *Num `json:"oneMonthPriceChange"`
	OneYearPriceChange    *Num `json:"oneYearPriceChange"`
	LastTradePrice        *Num `json:"lastTradePrice"`
	BestBid               *Num `json:"bestBid"`
	BestAsk               *Num `json:"bestAsk"`
	Line                  *Num `json:"line"`
	OpenInterest          *Num `json:"openInterest"` // extra: live, summed into the event

	// nested
	PositionIds    StrList         `json:"positionIds"`
	ImageOptimized *ImageOptimized `json:"imageOptimized"`
	IconOptimized  *ImageOptimized `json:"iconOptimized"`
	Events         []EventRef      `json:"events"`
	Categories     []Category      `json:"categories"`
	Tags           []Tag           `json:"tags"`
	FeeSchedule    *FeeSchedule    `json:"feeSchedule"`

	// Rev: as Event.Rev.
	Rev int64 `json:"-"`
}
