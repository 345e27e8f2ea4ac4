package catalog

// Event groups one or more markets. Its liquidity, volume and openInterest are
// numbers (unlike a market's decimal strings); createdBy/updatedBy are strings.
// Live fields are summed from its markets at read time (see live.go).
type Event struct {
	// strings
	ID                Str     `json:"id"`
	Ticker            *string `json:"ticker"`
	Slug              *string `json:"slug"`
	Title             *string `json:"title"`
	Subtitle          *string `json:"subtitle"`
	Description       *string `json:"description"`
	ResolutionSource  *string `json:"resolutionSource"`
	Image             *string `json:"image"`
	Icon              *string `json:"icon"`
	SortBy            *string `json:"sortBy"`
	Category          *string `json:"category"`
	Subcategory       *string `json:"subcategory"`
	TemplateVariables *string `json:"templateVariables"`
	PublishedAt       *string `json:"published_at"`
	CreatedBy         *Str    `json:"createdBy"`
	UpdatedBy         *Str    `json:"updatedBy"`
	FeaturedImage     *string `json:"featuredImage"`
	CommentThread     *string `json:"commentThread"`
	ParentEvent       *Str    `json:"parentEvent"`
	NegRiskMarketID   *string `json:"negRiskMarketID"`
	EventDate         *string `json:"eventDate"`
	SeriesSlug        *string `json:"seriesSlug"`
	Score             *string `json:"score"`
	Elapsed           *string `json:"elapsed"`
	Period            *string `json:"period"`
	GmpChartMode      *string `json:"gmpChartMode"`
	EstimatedValue    *Str    `json:"estimatedValue"`
	CarouselMap       *string `json:"carouselMap"`
	GameStatus        *string `json:"gameStatus"`

	// date-times
	StartDate                    *string `json:"startDate"`
	CreationDate                 *string `json:"creationDate"`
	EndDate                      *string `json:"endDate"`
	CreatedAt                    *string `json:"createdAt"`
	UpdatedAt                    *string `json:"updatedAt"`
	ClosedTime                   *string `json:"closedTime"`
	StartTime                    *string `json:"startTime"`
	FinishedTimestamp            *string `json:"finishedTimestamp"`
	DeployingTimestamp           *string `json:"deployingTimestamp"`
	ScheduledDeploymentTimestamp *string `json:"scheduledDeploymentTimestamp"`

	// booleans
	Active                bool `json:"active"`
	Closed                bool `json:"closed"`
	Archived              bool `json:"archived"`
	New                   bool `json:"new"`
	Featured              bool `json:"featured"`
	Restricted            bool `json:"restricted"`
	IsTemplate            bool `json:"isTemplate"`
	CommentsEnabled       bool `json:"commentsEnabled"`
	EnableOrderBook       bool `json:"enableOrderBook"`
	NegRisk               bool `json:"negRisk"`
	Cyom                  bool `json:"cyom"`
	ShowAllOutcomes       bool `json:"showAllOutcomes"`
	ShowMarketImages      bool `json:"showMarketImages"`
	AutomaticallyResolved bool `json:"automaticallyResolved"`
	EnableNegRisk         bool `json:"enableNegRisk"`
	AutomaticallyActive   bool `json:"automaticallyActive"`
	Live                  bool `json:"live"`
	Ended                 bool `json:"ended"`
	EstimateValue         bool `json:"estimateValue"`
	CantEstimate          bool `json:"cantEstimate"`
	PendingDeployment     bool `json:"pendingDeployment"`
	Deploying             bool `json:"deploying"`

	// numbers
	Liquidity       *Num `json:"liquidity"`
	Volume          *Num `json:"volume"`
	OpenInterest    *Num `json:"openInterest"`
	Competitive     *Num `json:"competitive"`
	Volume24hr      *Num `json:"volume24hr"`
	Volume1wk       *Num `json:"volume1wk"`
	Volume1mo       *Num `json:"volume1mo"`
	Volume1yr       *Num `json:"volume1yr"`
	LiquidityClob   *Num `json:"liquidityClob"`
	NegRiskFeeBips  *Num `json:"negRiskFeeBips"`
	CommentCount    *Num `json:"commentCount"`
	EventWeek       *Num `json:"eventWeek"`
	PostCount       *Num `json:"postCount"`
	FeaturedOrder   *Num `json:"featuredOrder"`
	SpreadsMainLine *Num `json:"spreadsMainLine"`
	TotalsMainLine  *Num `json:"totalsMainLine"`

	// nested
	ImageOptimized         *ImageOptimized `json:"imageOptimized"`
	IconOptimized          *ImageOptimized `json:"iconOptimized"`
	FeaturedImageOptimized *ImageOptimized `json:"featuredImageOptimized"`
	SubEvents              StrList         `json:"subEvents"`
	Markets                []Market        `json:"markets"`
	Series                 []Series        `json:"series"`
	Categories             []Category      `json:"categories"`
	Collections            []Collection    `json:"collections"`
	Tags                   []Tag           `json:"tags"`
	EventCreators          []EventCreator  `json:"eventCreators"`
	Chats                  []Chat          `json:"chats"`
	Templates              []Template      `json:"templates"`

	// Rev is the store revision the event was read at (0: unversioned); it
	// keys the handler's render cache and is never serialised.
	Rev int64 `json:"-"`
}

// Ref abbreviates the event for nesting in its markets.
func (e *Event) Ref() EventRef {
	return EventRef{ID: e.ID, Ticker: e.Ticker, Slug: e.Slug, Title: e.Title}
}
