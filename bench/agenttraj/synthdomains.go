package main

import (
	"fmt"
	"math/rand/v2"
)

// The synthetic set's domains: the tables of each, their columns and the
// pools their values come from. Every proper name here is made up for
// this set and none is one of examples/bikeco's (the test checks).

// colKind is what a synthetic column holds.
type colKind int

const (
	kindKey   colKind = iota // the table's own key: unique integers
	kindRef                  // a foreign key to an earlier table's key
	kindLabel                // a unique name from a pool
	kindCat                  // a category from a pool
	kindInt                  // an integer measure
	kindReal                 // a measure with decimals
	kindDate                 // a date, YYYY-MM-DD
)

// colSpec is one column a table of a domain may have.
type colSpec struct {
	kind   colKind
	names  []string // the names it may take, words separated by spaces
	phrase string   // how a question says it
	pool   func(r *rand.Rand, n int) []string
	lo, hi int // kindInt, kindReal (before the decimals), kindDate (years)
	dec    int // kindReal: the decimals
	ref    int // kindRef: the index of the referenced table in the domain
}

// tableSpec is one table of a domain: its names (singular, plural pairs
// of words), how questions call its rows, its columns and its size.
type tableSpec struct {
	names        [][2]string
	noun, plural string
	cols         []colSpec
	minRows      int
	maxRows      int
}

type domainSpec struct {
	key    string
	files  []string // the SQLite file's base name (it prefixes the bundle's table names)
	tables []tableSpec
}

func label(phrase string, pool func(*rand.Rand, int) []string, names ...string) colSpec {
	return colSpec{kind: kindLabel, names: names, phrase: phrase, pool: pool}
}

func category(phrase string, values []string, names ...string) colSpec {
	return colSpec{kind: kindCat, names: names, phrase: phrase, pool: fixed(values)}
}

// personCat is a category of a few people's names (drivers, inspectors).
func personCat(phrase string, names ...string) colSpec {
	return colSpec{kind: kindCat, names: names, phrase: phrase, pool: people}
}

func integer(phrase string, lo, hi int, names ...string) colSpec {
	return colSpec{kind: kindInt, names: names, phrase: phrase, lo: lo, hi: hi}
}

func decimal(phrase string, lo, hi, dec int, names ...string) colSpec {
	return colSpec{kind: kindReal, names: names, phrase: phrase, lo: lo, hi: hi, dec: dec}
}

func date(phrase string, from, to int, names ...string) colSpec {
	return colSpec{kind: kindDate, names: names, phrase: phrase, lo: from, hi: to}
}

func ref(table int) colSpec { return colSpec{kind: kindRef, ref: table} }

// fixed is a pool of these values, in a random order.
func fixed(values []string) func(*rand.Rand, int) []string {
	return func(r *rand.Rand, n int) []string {
		out := append([]string(nil), values...)
		r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		return out[:min(n, len(out))]
	}
}

// combos is a pool of distinct "a b" names of two word lists, with an
// optional format (e.g. "%s %s Clinic").
func combos(format string, a, b []string) func(*rand.Rand, int) []string {
	return func(r *rand.Rand, n int) []string {
		var out []string
		for _, i := range r.Perm(len(a) * len(b)) {
			out = append(out, fmt.Sprintf(format, a[i/len(b)], b[i%len(b)]))
		}
		return out[:min(n, len(out))]
	}
}

// codes is a pool of distinct codes: a prefix and digits ("RX-4821").
func codes(prefixes []string, digits int) func(*rand.Rand, int) []string {
	return func(r *rand.Rand, n int) []string {
		seen := map[string]bool{}
		var out []string
		lim := 1
		for range digits {
			lim *= 10
		}
		for len(out) < n {
			c := fmt.Sprintf("%s-%0*d", prefixes[r.IntN(len(prefixes))], digits, r.IntN(lim))
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
		return out
	}
}

var (
	firstNames = []string{
		"Amara", "Bjorn", "Chiara", "Dmitri", "Esme", "Farid", "Greta", "Hiroshi", "Ingrid", "Jovan", "Keiko", "Lucian",
		"Mireille", "Nadia", "Oskar", "Priya", "Quentin", "Rosalind", "Soren", "Tamsin", "Ulrich", "Vesna", "Wendell",
		"Ximena", "Yusuf", "Zofia", "Anselm", "Brigid", "Cosmo", "Delphine", "Emeric", "Fenella", "Gideon", "Hester",
		"Juno", "Kasimir", "Leontine", "Magnus", "Noor", "Orla", "Radomir", "Saoirse", "Thaddeus", "Ottilie",
	}
	lastNames = []string{
		"Abernathy", "Bellweather", "Castellanos", "Drummond", "Eriksen", "Fairbanks", "Galloway", "Hawthorne",
		"Ivanova", "Jablonski", "Kowalczyk", "Lindqvist", "Mbeki", "Nakamura", "Okonkwo", "Pemberton", "Quist",
		"Rasmussen", "Szabo", "Takahashi", "Umarov", "Valdivia", "Whitlock", "Yilmaz", "Zeller", "Achterberg",
		"Brannigan", "Cuthbert", "Dunmore", "Espinoza",
	}
	firmWords = []string{
		"Copperfield", "Bramble", "Tidewater", "Granite", "Juniper", "Saltmarsh", "Hollowbrook", "Ember", "Marigold",
		"Oakhaven", "Bluefin", "Thistle", "Driftwood", "Larkspur", "Cobalt", "Foxglove", "Stonebridge", "Pinecrest",
		"Riverton", "Quillon", "Harrowgate", "Wrenfield",
	}
	firmKinds = []string{"Supply", "Traders", "Holdings", "Partners", "Industries", "Fabrication", "Wholesale", "Logistics", "Labs", "Merchants", "Group"}
	cities    = []string{
		"Tromso", "Valparaiso", "Kraljevo", "Hobart", "Tartu", "Oaxaca", "Nagoya", "Windhoek", "Galway", "Kaunas",
		"Ljubljana", "Tampere", "Cusco", "Mombasa", "Halifax", "Adelaide", "Bergen", "Ghent", "Tbilisi", "Zadar",
	}
	placeWords = []string{"Maple", "Harbour", "Summit", "Lakeside", "Willow", "Birch", "Cedar", "Meadow", "Coral", "Falcon", "Heron", "Aspen", "Kettle", "Osprey"}

	people  = combos("%s %s", firstNames, lastNames)
	firms   = combos("%s %s", firmWords, firmKinds)
	titles  = combos("%s %s", []string{"Quiet", "Crimson", "Hidden", "Silver", "Endless", "Broken", "Gentle", "Northern", "Distant", "Amber", "Wandering"}, []string{"Orchard", "Tide", "Lantern", "Meridian", "Compass", "Harvest", "Echo", "Garden", "Winter", "Voyage", "Keeper"})
	ratings = []string{"bronze", "silver", "platinum"}
)

// domains are the synthetic set's domains; a table refers only to
// tables before it.
var domains = []domainSpec{
	{key: "purchasing", files: []string{"purchasing", "procurement_db", "buying"}, tables: []tableSpec{
		{names: [][2]string{{"supplier", "suppliers"}, {"vendor", "vendors"}}, noun: "supplier", plural: "suppliers", minRows: 6, maxRows: 14, cols: []colSpec{
			label("name", firms, "name", "supplier name", "company"),
			category("city", cities[:8], "city", "location", "hq city"),
			category("tier", ratings, "tier", "rating tier"),
			integer("rating", 1, 5, "rating", "score"),
			date("first order date", 2012, 2022, "since", "first order date", "onboarded"),
		}},
		{names: [][2]string{{"part", "parts"}, {"component", "components"}, {"item", "items"}}, noun: "part", plural: "parts", minRows: 8, maxRows: 20, cols: []colSpec{
			label("name", fixed([]string{"hex bolt", "washer", "bracket", "hinge", "spring clip", "gasket", "bearing", "pulley", "rivet", "valve", "coupling", "flange", "sprocket", "bushing", "spindle", "cam lever", "shim", "collar", "grommet", "latch"}), "name", "part name", "description"),
			category("material", []string{"steel", "brass", "nylon", "zinc", "copper"}, "material"),
			decimal("unit price", 1, 90, 2, "unit price", "price", "cost"),
			decimal("weight in grams", 5, 800, 1, "weight g", "weight", "mass grams"),
		}},
		{names: [][2]string{{"purchase order", "purchase orders"}, {"order", "orders"}, {"po", "pos"}}, noun: "purchase order", plural: "purchase orders", minRows: 20, maxRows: 60, cols: []colSpec{
			ref(0), ref(1),
			integer("quantity", 5, 400, "qty", "quantity", "units"),
			date("order date", 2023, 2025, "order date", "ordered on", "po date"),
			category("status", []string{"open", "received", "cancelled", "partial"}, "status", "state"),
		}},
	}},
	{key: "staff", files: []string{"hr", "personnel", "staffing"}, tables: []tableSpec{
		{names: [][2]string{{"department", "departments"}, {"dept", "depts"}, {"unit", "units"}}, noun: "department", plural: "departments", minRows: 4, maxRows: 9, cols: []colSpec{
			label("name", fixed([]string{"Accounts", "Legal", "Research", "Marketing", "Facilities", "Training", "Payroll", "Security", "Engineering"}), "name", "dept name", "title"),
			integer("floor", 1, 12, "floor", "floor no"),
			integer("budget", 50000, 900000, "budget", "annual budget"),
		}},
		{names: [][2]string{{"employee", "employees"}, {"staff member", "staff members"}, {"worker", "workers"}}, noun: "employee", plural: "employees", minRows: 12, maxRows: 40, cols: []colSpec{
			label("name", people, "name", "full name", "employee name"),
			ref(0),
			integer("salary", 28000, 140000, "salary", "annual pay", "wage"),
			date("hire date", 2005, 2025, "hire date", "hired on", "start date"),
			category("job title", []string{"analyst", "manager", "clerk", "engineer", "technician", "coordinator"}, "job title", "role", "position"),
			integer("age", 21, 66, "age"),
		}},
	}},
	{key: "retail", files: []string{"stores", "retail", "shops_db"}, tables: []tableSpec{
		{names: [][2]string{{"store", "stores"}, {"branch", "branches"}, {"outlet", "outlets"}}, noun: "store", plural: "stores", minRows: 5, maxRows: 12, cols: []colSpec{
			label("name", combos("%s %s", placeWords, []string{"Market", "Corner", "Emporium", "Depot"}), "name", "store name", "branch name"),
			category("city", cities[4:12], "city", "town"),
			integer("floor area", 120, 3000, "area sqm", "floor area", "size m2"),
			date("opening date", 2000, 2023, "opened", "opening date", "open date"),
		}},
		{names: [][2]string{{"sale", "sales"}, {"transaction", "transactions"}, {"receipt", "receipts"}}, noun: "sale", plural: "sales", minRows: 25, maxRows: 70, cols: []colSpec{
			ref(0),
			category("product line", []string{"grocery", "toys", "garden", "stationery", "kitchenware", "pet care"}, "product line", "category", "dept"),
			decimal("amount", 2, 480, 2, "amount", "total", "sale amount", "value"),
			integer("units", 1, 30, "units", "qty", "items sold", "quantity"),
			date("sale date", 2024, 2025, "sale date", "sold on", "txn date"),
			category("channel", []string{"in store", "online", "phone"}, "channel", "sales channel"),
		}},
	}},
	{key: "weather", files: []string{"weather", "climate", "observations"}, tables: []tableSpec{
		{names: [][2]string{{"station", "stations"}, {"weather station", "weather stations"}, {"site", "sites"}}, noun: "station", plural: "stations", minRows: 4, maxRows: 10, cols: []colSpec{
			label("name", combos("%s %s", placeWords, []string{"Ridge", "Point", "Valley", "Field", "Bay"}), "name", "station name", "site name"),
			category("region", []string{"coastal", "alpine", "inland", "island"}, "region", "zone"),
			integer("elevation in metres", 0, 2400, "elevation", "elevation m", "altitude"),
		}},
		{names: [][2]string{{"reading", "readings"}, {"observation", "observations"}, {"measurement", "measurements"}}, noun: "reading", plural: "readings", minRows: 25, maxRows: 80, cols: []colSpec{
			ref(0),
			date("date", 2024, 2025, "reading date", "observed on", "obs date"),
			decimal("temperature", -15, 35, 1, "temperature", "temp c", "air temp"),
			decimal("rainfall in millimetres", 0, 60, 1, "rainfall mm", "precipitation", "rain"),
			integer("wind speed", 0, 90, "wind speed", "wind kmh", "gust"),
		}},
	}},
	{key: "clinic", files: []string{"clinic", "practice", "health_center"}, tables: []tableSpec{
		{names: [][2]string{{"patient", "patients"}}, noun: "patient", plural: "patients", minRows: 8, maxRows: 25, cols: []colSpec{
			label("name", people, "name", "patient name", "full name"),
			category("blood type", []string{"A+", "A-", "B+", "O+", "O-", "AB+"}, "blood type", "blood group"),
			integer("birth year", 1940, 2015, "birth year", "year of birth", "born"),
			category("city", cities[10:18], "city", "home town"),
		}},
		{names: [][2]string{{"visit", "visits"}, {"appointment", "appointments"}, {"consultation", "consultations"}}, noun: "visit", plural: "visits", minRows: 20, maxRows: 60, cols: []colSpec{
			ref(0),
			date("visit date", 2023, 2025, "visit date", "seen on", "appointment date"),
			category("reason", []string{"checkup", "vaccination", "injury", "follow up", "allergy"}, "reason", "visit reason", "purpose"),
			decimal("fee", 20, 350, 2, "fee", "cost", "charge"),
			integer("duration in minutes", 10, 90, "duration min", "minutes", "length"),
		}},
	}},
	{key: "school", files: []string{"school", "registrar", "college"}, tables: []tableSpec{
		{names: [][2]string{{"course", "courses"}, {"module", "modules"}, {"class", "classes"}}, noun: "course", plural: "courses", minRows: 5, maxRows: 12, cols: []colSpec{
			label("title", fixed([]string{"Organic Chemistry", "Linear Algebra", "Medieval History", "Microeconomics", "Poetry Workshop", "Genetics", "Statistics", "Astronomy", "Ceramics", "Phonetics", "Ethics", "Geology"}), "title", "course title", "name"),
			category("faculty", []string{"science", "arts", "humanities", "social sciences"}, "faculty", "school"),
			integer("credits", 2, 10, "credits", "credit points", "ects"),
		}},
		{names: [][2]string{{"student", "students"}, {"learner", "learners"}}, noun: "student", plural: "students", minRows: 10, maxRows: 30, cols: []colSpec{
			label("name", people, "name", "student name", "full name"),
			integer("year of study", 1, 4, "study year", "year level", "cohort year"),
			category("major", []string{"biology", "history", "mathematics", "economics", "music"}, "major", "programme"),
			decimal("grade point average", 1, 4, 2, "gpa", "grade avg"),
		}},
		{names: [][2]string{{"enrolment", "enrolments"}, {"enrollment", "enrollments"}, {"registration", "registrations"}}, noun: "enrolment", plural: "enrolments", minRows: 20, maxRows: 60, cols: []colSpec{
			ref(1), ref(0),
			integer("mark", 30, 100, "mark", "score", "final mark"),
			category("term", []string{"autumn", "spring", "summer"}, "term", "semester"),
		}},
	}},
	{key: "fleet", files: []string{"fleet", "transport", "motor_pool"}, tables: []tableSpec{
		{names: [][2]string{{"vehicle", "vehicles"}, {"van", "vans"}, {"truck", "trucks"}}, noun: "vehicle", plural: "vehicles", minRows: 5, maxRows: 14, cols: []colSpec{
			label("plate", codes([]string{"KT", "RM", "ZX", "LP", "BW"}, 4), "plate", "registration", "plate no"),
			category("make", []string{"Tarrant", "Olsberg", "Mikado", "Vantor"}, "make", "manufacturer", "brand"),
			integer("model year", 2008, 2025, "model year", "built year"),
			integer("capacity in kilograms", 500, 9000, "capacity kg", "payload", "max load"),
		}},
		{names: [][2]string{{"trip", "trips"}, {"journey", "journeys"}, {"run", "runs"}}, noun: "trip", plural: "trips", minRows: 25, maxRows: 70, cols: []colSpec{
			ref(0),
			date("trip date", 2024, 2025, "trip date", "departed", "run date"),
			decimal("distance in kilometres", 3, 700, 1, "distance km", "km", "distance"),
			decimal("fuel used in litres", 1, 180, 1, "fuel litres", "fuel used", "fuel l"),
			personCat("driver", "driver", "driver name"),
		}},
	}},
	{key: "projects", files: []string{"projects", "pmo", "workplan"}, tables: []tableSpec{
		{names: [][2]string{{"project", "projects"}, {"initiative", "initiatives"}}, noun: "project", plural: "projects", minRows: 4, maxRows: 10, cols: []colSpec{
			label("name", combos("Project %s %s", []string{"Blue", "Red", "Green", "Iron", "Glass", "Paper"}, []string{"Heron", "Osprey", "Falcon", "Kettle", "Ember"}), "name", "project name", "title"),
			integer("budget", 10000, 500000, "budget", "budget eur", "funding"),
			date("start date", 2021, 2025, "start date", "kickoff", "started"),
			category("status", []string{"active", "on hold", "done", "planned"}, "status", "phase"),
		}},
		{names: [][2]string{{"task", "tasks"}, {"work item", "work items"}, {"ticket", "tickets"}}, noun: "task", plural: "tasks", minRows: 20, maxRows: 60, cols: []colSpec{
			ref(0),
			label("title", combos("%s the %s", []string{"Refactor", "Draft", "Test", "Migrate", "Audit", "Sketch", "Deploy", "Document"}, []string{"schema", "invoices", "dashboard", "contract", "backlog", "API", "archive", "survey"}), "title", "summary", "task name"),
			integer("estimated hours", 1, 80, "hours", "est hours", "effort"),
			category("priority", []string{"low", "medium", "high", "urgent"}, "priority", "prio"),
			date("due date", 2024, 2026, "due date", "deadline", "due"),
		}},
	}},
	{key: "library", files: []string{"library", "lending", "catalogue"}, tables: []tableSpec{
		{names: [][2]string{{"book", "books"}, {"title", "titles"}, {"volume", "volumes"}}, noun: "book", plural: "books", minRows: 8, maxRows: 25, cols: []colSpec{
			label("title", titles, "title", "book title", "name"),
			category("genre", []string{"mystery", "biography", "fantasy", "travel", "cookery", "poetry"}, "genre", "category", "shelf"),
			integer("number of pages", 80, 900, "pages", "page count", "num pages"),
			integer("publication year", 1950, 2024, "pub year", "published", "year published"),
		}},
		{names: [][2]string{{"member", "members"}, {"borrower", "borrowers"}, {"patron", "patrons"}}, noun: "member", plural: "members", minRows: 8, maxRows: 20, cols: []colSpec{
			label("name", people, "name", "member name", "full name"),
			date("joining date", 2010, 2025, "joined", "join date", "member since"),
			category("membership type", []string{"adult", "junior", "senior", "student"}, "membership", "card type"),
		}},
		{names: [][2]string{{"loan", "loans"}, {"checkout", "checkouts"}, {"borrowing", "borrowings"}}, noun: "loan", plural: "loans", minRows: 20, maxRows: 60, cols: []colSpec{
			ref(0), ref(1),
			date("loan date", 2024, 2025, "loan date", "borrowed on", "checkout date"),
			integer("days kept", 1, 45, "days", "days kept", "loan days"),
			decimal("late fee", 0, 15, 2, "late fee", "fine"),
		}},
	}},
	{key: "dining", files: []string{"restaurants", "food_safety", "eateries"}, tables: []tableSpec{
		{names: [][2]string{{"restaurant", "restaurants"}, {"eatery", "eateries"}, {"venue", "venues"}}, noun: "restaurant", plural: "restaurants", minRows: 6, maxRows: 16, cols: []colSpec{
			label("name", combos("%s %s", []string{"Saffron", "Olive", "Basil", "Pepper", "Fig", "Clove", "Sorrel"}, []string{"Kitchen", "Table", "Bistro", "Grill", "House"}), "name", "restaurant name", "trading name"),
			category("cuisine", []string{"thai", "ethiopian", "peruvian", "greek", "korean", "lebanese"}, "cuisine", "food type"),
			category("city", cities[2:9], "city", "district"),
			integer("seats", 12, 180, "seats", "capacity", "covers"),
		}},
		{names: [][2]string{{"inspection", "inspections"}, {"audit", "audits"}}, noun: "inspection", plural: "inspections", minRows: 15, maxRows: 45, cols: []colSpec{
			ref(0),
			date("inspection date", 2022, 2025, "inspection date", "inspected on", "visit date"),
			integer("score", 40, 100, "score", "hygiene score", "rating"),
			category("outcome", []string{"pass", "conditional", "fail"}, "outcome", "result"),
			personCat("inspector", "inspector", "officer"),
		}},
	}},
	{key: "events", files: []string{"events", "ticketing", "box_office"}, tables: []tableSpec{
		{names: [][2]string{{"venue", "venues"}, {"hall", "halls"}, {"location", "locations"}}, noun: "venue", plural: "venues", minRows: 4, maxRows: 10, cols: []colSpec{
			label("name", combos("%s %s", placeWords, []string{"Hall", "Arena", "Pavilion", "Theatre"}), "name", "venue name"),
			category("city", cities[6:14], "city"),
			integer("capacity", 200, 20000, "capacity", "max capacity", "seats"),
		}},
		{names: [][2]string{{"event", "events"}, {"show", "shows"}, {"performance", "performances"}}, noun: "event", plural: "events", minRows: 15, maxRows: 40, cols: []colSpec{
			ref(0),
			label("title", titles, "title", "event name", "billing"),
			date("event date", 2024, 2026, "event date", "show date", "held on"),
			integer("tickets sold", 50, 15000, "tickets sold", "attendance", "sold"),
			decimal("ticket price", 8, 150, 2, "ticket price", "price", "admission"),
			category("kind", []string{"concert", "comedy", "lecture", "dance", "film"}, "kind", "event type", "genre"),
		}},
	}},
	{key: "farm", files: []string{"farm", "agronomy", "harvests_db"}, tables: []tableSpec{
		{names: [][2]string{{"field", "fields"}, {"plot", "plots"}, {"paddock", "paddocks"}}, noun: "field", plural: "fields", minRows: 5, maxRows: 14, cols: []colSpec{
			label("name", combos("%s %s", []string{"Long", "Upper", "Lower", "Hill", "Mill", "Brook", "Stone"}, []string{"Acre", "Close", "Meadow", "Piece"}), "name", "field name"),
			category("crop", []string{"barley", "oats", "rapeseed", "potatoes", "beans"}, "crop", "main crop"),
			decimal("area in hectares", 1, 60, 1, "hectares", "area ha", "size"),
			category("soil", []string{"clay", "loam", "sandy", "chalk"}, "soil", "soil type"),
		}},
		{names: [][2]string{{"harvest", "harvests"}, {"yield", "yields"}}, noun: "harvest", plural: "harvests", minRows: 15, maxRows: 45, cols: []colSpec{
			ref(0),
			date("harvest date", 2020, 2025, "harvest date", "harvested on", "cut date"),
			decimal("tonnes harvested", 1, 400, 1, "tonnes", "yield t", "weight tonnes"),
			category("quality grade", []string{"premium", "standard", "feed"}, "grade", "quality"),
		}},
	}},
	{key: "gym", files: []string{"gym", "fitness", "leisure_centre"}, tables: []tableSpec{
		{names: [][2]string{{"member", "members"}, {"client", "clients"}, {"customer", "customers"}}, noun: "member", plural: "members", minRows: 8, maxRows: 25, cols: []colSpec{
			label("name", people, "name", "member name"),
			category("plan", []string{"monthly", "annual", "off peak", "day pass"}, "plan", "membership plan", "tariff"),
			integer("age", 16, 80, "age"),
			date("joining date", 2018, 2025, "joined", "join date", "signup date"),
		}},
		{names: [][2]string{{"session", "sessions"}, {"workout", "workouts"}, {"visit", "visits"}}, noun: "session", plural: "sessions", minRows: 25, maxRows: 70, cols: []colSpec{
			ref(0),
			date("session date", 2024, 2025, "session date", "visited on"),
			integer("minutes", 15, 150, "minutes", "duration", "mins"),
			category("activity", []string{"rowing", "yoga", "spin", "swimming", "weights", "pilates"}, "activity", "class type"),
			integer("calories burned", 80, 1200, "calories", "kcal", "energy"),
		}},
	}},
	{key: "hotel", files: []string{"hotels", "lodging", "stays"}, tables: []tableSpec{
		{names: [][2]string{{"hotel", "hotels"}, {"property", "properties"}, {"inn", "inns"}}, noun: "hotel", plural: "hotels", minRows: 4, maxRows: 10, cols: []colSpec{
			label("name", combos("%s %s", placeWords, []string{"Lodge", "Inn", "Residence"}), "name", "hotel name"),
			category("city", cities[12:20], "city", "destination"),
			integer("star rating", 1, 5, "stars", "star rating", "grade"),
			integer("number of rooms", 10, 400, "rooms", "room count", "num rooms"),
		}},
		{names: [][2]string{{"booking", "bookings"}, {"reservation", "reservations"}, {"stay", "stays"}}, noun: "booking", plural: "bookings", minRows: 20, maxRows: 60, cols: []colSpec{
			ref(0),
			label("guest", people, "guest", "guest name", "booked by"),
			date("check-in date", 2024, 2025, "check in", "arrival date", "checkin"),
			integer("nights", 1, 14, "nights", "num nights", "length of stay"),
			decimal("nightly rate", 40, 420, 2, "nightly rate", "rate", "price per night"),
		}},
	}},
	{key: "warehouse", files: []string{"logistics", "warehousing", "shipping"}, tables: []tableSpec{
		{names: [][2]string{{"warehouse", "warehouses"}, {"depot", "depots"}, {"hub", "hubs"}}, noun: "warehouse", plural: "warehouses", minRows: 4, maxRows: 9, cols: []colSpec{
			label("name", combos("%s %s", []string{"East", "West", "Harbour", "Airport", "Canal", "Quarry"}, []string{"Depot", "Yard", "Terminal"}), "name", "site name"),
			category("city", cities[:10], "city", "located in"),
			integer("capacity in pallets", 500, 20000, "pallet capacity", "capacity", "max pallets"),
		}},
		{names: [][2]string{{"shipment", "shipments"}, {"consignment", "consignments"}, {"parcel", "parcels"}}, noun: "shipment", plural: "shipments", minRows: 25, maxRows: 70, cols: []colSpec{
			ref(0),
			decimal("weight in kilograms", 1, 2500, 1, "weight kg", "gross weight", "mass"),
			date("dispatch date", 2024, 2025, "dispatch date", "shipped on", "sent"),
			category("carrier", []string{"Norrland Freight", "Quayside Express", "Tallis Haulage", "Brightwater Post"}, "carrier", "courier", "haulier"),
			category("destination", cities[8:16], "destination", "dest city", "ship to"),
		}},
	}},
	{key: "software", files: []string{"apps", "app_store", "releases"}, tables: []tableSpec{
		{names: [][2]string{{"app", "apps"}, {"application", "applications"}, {"product", "products"}}, noun: "app", plural: "apps", minRows: 6, maxRows: 16, cols: []colSpec{
			label("name", combos("%s%s", []string{"Note", "Budget", "Photo", "Trail", "Sleep", "Recipe", "Habit", "Chess"}, []string{"ly", "Pal", "Nest", "Hub", "Mate"}), "name", "app name", "title"),
			category("platform", []string{"android", "ios", "web", "desktop"}, "platform", "os"),
			integer("downloads", 100, 900000, "downloads", "installs", "download count"),
			decimal("average rating", 1, 5, 1, "rating", "avg rating", "stars"),
		}},
		{names: [][2]string{{"release", "releases"}, {"version", "versions"}, {"build", "builds"}}, noun: "release", plural: "releases", minRows: 20, maxRows: 50, cols: []colSpec{
			ref(0),
			label("version", codes([]string{"v1", "v2", "v3", "v4"}, 3), "version", "version tag", "tag"),
			date("release date", 2021, 2025, "release date", "released", "shipped"),
			integer("bugs fixed", 0, 120, "bugs fixed", "fixes", "issues closed"),
			decimal("package size in megabytes", 2, 400, 1, "size mb", "package mb", "size"),
		}},
	}},
}
