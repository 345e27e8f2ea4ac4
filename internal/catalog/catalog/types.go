package catalog

// Wire types of the catalog service, field for field the contract's lists
// (interface.md "Catalog resources") with production's spelling
// (clob-and-catalog.md §9). Rendering rules, the same for every type:
//   - ids are strings; every listed field is always present;
//   - booleans are true/false (absent on import means false);
//   - arrays are [] when empty, never null;
//   - strings, numbers, date-times and nested objects are null when unknown.
// Fields production sends that the contract does not list are not kept,
// except the few the official client reads (see docs/catalog.md).

// Tag is a label attached to events and markets.
type Tag struct {
	ID          Str     `json:"id"`
	Label       *string `json:"label"`
	Slug        *string `json:"slug"`
	ForceShow   bool    `json:"forceShow"`
	PublishedAt *string `json:"publishedAt"`
	CreatedBy   *Num    `json:"createdBy"` // integer
	UpdatedBy   *Num    `json:"updatedBy"` // integer
	CreatedAt   *string `json:"createdAt"`
	UpdatedAt   *string `json:"updatedAt"`
	ForceHide   bool    `json:"forceHide"`
	IsCarousel  bool    `json:"isCarousel"`
}

// RelatedTag links a tag to another, ranked by how often they co-occur.
type RelatedTag struct {
	ID           string `json:"id"`
	TagID        int64  `json:"tagID"`
	RelatedTagID int64  `json:"relatedTagID"`
	Rank         int64  `json:"rank"`
}

// ImageOptimized describes a resized copy of an image.
type ImageOptimized struct {
	ID                        Str     `json:"id"`
	ImageURLSource            *string `json:"imageUrlSource"`
	ImageURLOptimized         *string `json:"imageUrlOptimized"`
	ImageSizeKbSource         *Num    `json:"imageSizeKbSource"`
	ImageSizeKbOptimized      *Num    `json:"imageSizeKbOptimized"`
	ImageOptimizedComplete    bool    `json:"imageOptimizedComplete"`
	ImageOptimizedLastUpdated *string `json:"imageOptimizedLastUpdated"`
	RelID                     *Num    `json:"relID"`
	Field                     *string `json:"field"`
	Relname                   *string `json:"relname"`
}

// Category is an editorial category.
type Category struct {
	ID             Str     `json:"id"`
	Label          *string `json:"label"`
	ParentCategory *string `json:"parentCategory"`
	Slug           *string `json:"slug"`
	PublishedAt    *string `json:"publishedAt"`
	CreatedBy      *Str    `json:"createdBy"`
	UpdatedBy      *Str    `json:"updatedBy"`
	CreatedAt      *string `json:"createdAt"`
	UpdatedAt      *string `json:"updatedAt"`
}

// Chat is a live chat channel attached to an event or series.
type Chat struct {
	ID           Str     `json:"id"`
	ChannelID    *string `json:"channelId"`
	ChannelName  *string `json:"channelName"`
	ChannelImage *string `json:"channelImage"`
	Live         bool    `json:"live"`
	StartTime    *string `json:"startTime"`
	EndTime      *string `json:"endTime"`
}

// EventCreator credits whoever proposed an event.
type EventCreator struct {
	ID            Str     `json:"id"`
	CreatorName   *string `json:"creatorName"`
	CreatorHandle *string `json:"creatorHandle"`
	CreatorURL    *string `json:"creatorUrl"`
	CreatorImage  *string `json:"creatorImage"`
	CreatedAt     *string `json:"createdAt"`
	UpdatedAt     *string `json:"updatedAt"`
}

// Template is the template an event was made from.
type Template struct {
	ID               Str     `json:"id"`
	EventTitle       *string `json:"eventTitle"`
	EventSlug        *string `json:"eventSlug"`
	EventImage       *string `json:"eventImage"`
	MarketTitle      *string `json:"marketTitle"`
	Description      *string `json:"description"`
	ResolutionSource *string `json:"resolutionSource"`
	NegRisk          bool    `json:"negRisk"`
	SortBy           *string `json:"sortBy"`
	ShowMarketImages bool    `json:"showMarketImages"`
	SeriesSlug       *string `json:"seriesSlug"`
	Outcomes         *string `json:"outcomes"`
}

// Collection groups events editorially. Its tags field is a string in
// production (the official client's schema says so), not a tag array.
type Collection struct {
	ID                   Str             `json:"id"`
	Ticker               *string         `json:"ticker"`
	Slug                 *string         `json:"slug"`
	Title                *string         `json:"title"`
	Subtitle             *string         `json:"subtitle"`
	CollectionType       *string         `json:"collectionType"`
	Description          *string         `json:"description"`
	Tags                 *string         `json:"tags"`
	Image                *string         `json:"image"`
	Icon                 *string         `json:"icon"`
	HeaderImage          *string         `json:"headerImage"`
	Layout               *string         `json:"layout"`
	Active               bool            `json:"active"`
	Closed               bool            `json:"closed"`
	Archived             bool            `json:"archived"`
	New                  bool            `json:"new"`
	Featured             bool            `json:"featured"`
	Restricted           bool            `json:"restricted"`
	IsTemplate           bool            `json:"isTemplate"`
	TemplateVariables    *string         `json:"templateVariables"`
	PublishedAt          *string         `json:"publishedAt"`
	CreatedBy            *Str            `json:"createdBy"`
	UpdatedBy            *Str            `json:"updatedBy"`
	CreatedAt            *string         `json:"createdAt"`
	UpdatedAt            *string         `json:"updatedAt"`
	CommentsEnabled      bool            `json:"commentsEnabled"`
	ImageOptimized       *ImageOptimized `json:"imageOptimized"`
	IconOptimized        *ImageOptimized `json:"iconOptimized"`
	HeaderImageOptimized *ImageOptimized `json:"headerImageOptimized"`
}

// Series is a recurring family of events. Types follow production (§9.5):
// createdBy/updatedBy and competitive are strings, templateVariables a boolean.
type Series struct {
	ID                Str          `json:"id"`
	Ticker            *string      `json:"ticker"`
	Slug              *string      `json:"slug"`
	Title             *string      `json:"title"`
	Subtitle          *string      `json:"subtitle"`
	SeriesType        *string      `json:"seriesType"`
	Recurrence        *string      `json:"recurrence"`
	Description       *string      `json:"description"`
	Image             *string      `json:"image"`
	Icon              *string      `json:"icon"`
	Layout            *string      `json:"layout"`
	Active            bool         `json:"active"`
	Closed            bool         `json:"closed"`
	Archived          bool         `json:"archived"`
	New               bool         `json:"new"`
	Featured          bool         `json:"featured"`
	Restricted        bool         `json:"restricted"`
	IsTemplate        bool         `json:"isTemplate"`
	TemplateVariables bool         `json:"templateVariables"`
	PublishedAt       *string      `json:"publishedAt"`
	CreatedBy         *Str         `json:"createdBy"`
	UpdatedBy         *Str         `json:"updatedBy"`
	CreatedAt         *string      `json:"createdAt"`
	UpdatedAt         *string      `json:"updatedAt"`
	CommentsEnabled   bool         `json:"commentsEnabled"`
	Competitive       *Str         `json:"competitive"`
	Volume24hr        *Num         `json:"volume24hr"`
	Volume            *Num         `json:"volume"`
	Liquidity         *Num         `json:"liquidity"`
	StartDate         *string      `json:"startDate"`
	FeedTokenID       *string      `json:"feedTokenID"`
	AssetName         *string      `json:"assetName"`
	Score             *Num         `json:"score"`
	Events            []EventRef   `json:"events"`
	Collections       []Collection `json:"collections"`
	Categories        []Category   `json:"categories"`
	Tags              []Tag        `json:"tags"`
	CommentCount      *Num         `json:"commentCount"`
	Chats             []Chat       `json:"chats"`
}

// EventRef is the abbreviated event nested in a market or a series.
type EventRef struct {
	ID     Str     `json:"id"`
	Ticker *string `json:"ticker"`
	Slug   *string `json:"slug"`
	Title  *string `json:"title"`
}

// FeeSchedule is a market's trading fee curve.
type FeeSchedule struct {
	Exponent   Num  `json:"exponent"`
	Rate       Num  `json:"rate"`
	TakerOnly  bool `json:"takerOnly"`
	RebateRate Num  `json:"rebateRate"`
}
