package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"unicode"
)

// The word lists the names are composed from.
var (
	firstNames = strings.Fields(`Maria Anna Laura Sofia Elena Julia Clara Emma Lea Nina Sara Eva Ines Marta Paula Alice Chloe Hannah Ida Olga
		Ruth Vera Zoe Lucia Irene Carmen Rosa Helga Ingrid Greta Ana Beatriz Camila Daniela Fatima Leila Mei Yuki Priya Aisha
		John James Peter Paul Thomas Michael David Daniel Martin Lukas Jonas Felix Max Leon Noah Samuel Simon Tobias Erik Jan
		Carlos Diego Pablo Luis Marco Luca Matteo Pierre Louis Hugo Omar Ahmed Hiroshi Kenji Wei Arjun Ravi Ivan Dmitri Piotr
		Stefan Andreas Markus Florian Sebastian Henrik Lars Anders Mikko Sven Willi Klaus Jurgen Rolf Bernd Georg Otto Karl Emil Oscar`)
	surnames = strings.Fields(`Schneider Mueller Schmidt Fischer Weber Meyer Wagner Becker Schulz Hoffmann Koch Richter Klein Wolf Neumann
		Schwarz Zimmermann Braun Krueger Hofmann Hartmann Lange Werner Krause Lehmann Koehler Maier Walter Kaiser Fuchs Peters Lang
		Smith Johnson Williams Brown Jones Miller Davis Wilson Anderson Taylor Moore Jackson Martin Thompson White Harris Clark Lewis
		Robinson Walker Young Allen King Wright Scott Green Baker Adams Nelson Hill Campbell Mitchell Roberts Carter Phillips Evans
		Garcia Rodriguez Martinez Hernandez Lopez Gonzalez Perez Sanchez Ramirez Torres Flores Rivera Gomez Diaz Morales Ortiz
		Rossi Russo Ferrari Esposito Bianchi Romano Colombo Ricci Marino Greco Bruno Gallo Conti DeLuca Costa Fontana
		Dubois Durand Leroy Moreau Laurent Simon Michel Lefebvre Garnier Faure Rousseau Blanc Guerin Muller Boyer Chevalier
		Tanaka Suzuki Takahashi Watanabe Ito Yamamoto Nakamura Kobayashi Kato Yoshida Chen Wang Li Zhang Liu Yang Huang Zhao
		Kowalski Nowak Wisniewski Novak Horvath Nagy Kovacs Popescu Ivanov Petrov Sokolov Jansen DeVries Bakker Visser Smit
		Andersson Johansson Karlsson Nilsson Eriksson Larsson Olsen Hansen Nielsen Jensen Korhonen Virtanen Murphy Kelly OBrien`)
	roots = strings.Fields(`North South East West Blue Red Green Silver Golden Black White Bright Clear Prime Alpha Beta Delta Omega Nova
		Atlas Apex Summit Pioneer Frontier Harbor River Lake Ocean Mountain Valley Forest Cedar Oak Maple Pine Willow Birch
		Eagle Falcon Hawk Lion Tiger Bear Wolf Fox Phoenix Dragon Orion Vega Sirius Polaris Titan Zenith Vertex Quantum Fusion
		Vector Matrix Nexus Vertex Core Peak Crest Ridge Stone Iron Steel Copper Cobalt Carbon Quartz Crystal Diamond Amber
		Coral Jade Onyx Ruby Sapphire Emerald Horizon Meridian Equinox Solstice Aurora Boreal Polar Arctic Tropic Coastal
		Metro Urban Civic Royal Imperial National Continental Global Pacific Atlantic Nordic Alpine Baltic Celtic Iberian
		Hanseatic Bavarian Saxon Rhine Danube Thames Hudson Sierra Cascade Canyon Prairie Meadow Orchard Harvest Sunrise
		Sunset Twilight Midnight Starlight Moonstone Lighthouse Anchor Compass Keystone Cornerstone Milestone Landmark
		Unity Liberty Victory Triumph Legacy Heritage Tradition Integrity Precision Accurate Rapid Swift Agile Nimble
		Smart Clever Wise Bold Brave True Loyal Noble Grand Major Central Federal Union Allied United Standard General`)
	industries = strings.Fields(`Systems Solutions Technologies Logistics Pharma Pharmaceuticals Biotech Energy Power Electric Electronics
		Motors Automotive Aerospace Aviation Shipping Freight Transport Foods Beverages Brewing Textiles Apparel Chemicals Plastics
		Polymers Metals Mining Minerals Materials Construction Engineering Architects Consulting Advisors Partners Capital
		Investments Holdings Ventures Finance Insurance Bank Trust Securities Realty Properties Estates Hotels Resorts Travel
		Media Publishing Press Broadcasting Studios Games Software Networks Telecom Communications Data Analytics Robotics
		Instruments Devices Medical Health Diagnostics Laboratories Optics Photonics Semiconductors Components Tools Machinery
		Industries Manufacturing Fabrication Packaging Printing Paper Timber Furniture Interiors Design Retail Trading Imports
		Exports Supply Distribution Services Maintenance Security Defense Marine Offshore Drilling Refining Solar Wind Hydro`)
	legal = []string{"Inc.", "Ltd.", "LLC", "GmbH", "AG", "S.A.", "SAS", "S.p.A.", "B.V.", "N.V.", "plc", "Corp.", "Co.", "KG", "Oy", "AB", "A/S", "Pty Ltd"}
	// longForm writes a legal form out in full, a common variant.
	longForm = map[string]string{
		"Inc.": "Incorporated", "Ltd.": "Limited", "Corp.": "Corporation", "Co.": "Company", "GmbH": "G.m.b.H.",
		"AG": "Aktiengesellschaft", "S.A.": "SA", "B.V.": "BV", "N.V.": "NV", "LLC": "L.L.C.", "plc": "PLC",
	}
	brands = strings.Fields(`Sony Canon Nikon Philips Samsung Bosch Siemens Panasonic Toshiba Sharp Logitech Garmin Olympus Pentax Fujifilm
		Kodak Epson Brother Lexmark Dell Lenovo Asus Acer Apple Microsoft Google Amazon Netgear Linksys Belkin Sennheiser Bose
		JBL Yamaha Pioneer Denver Kenwood Onkyo Marantz Denon Braun Rowenta Krups Tefal Miele Dyson Makita Hilti Stihl Husqvarna
		Kaercher Black+Decker DeWalt Ryobi Metabo Festool Victorinox Leatherman Nokia Motorola Ericsson Huawei Xiaomi Oppo Lego
		Hasbro Mattel Nintendo Sega Atari Casio Seiko Citizen Timex Swatch Tissot Omega Braun Gillette Oral-B Nivea Adidas Puma`)
	nouns = strings.Fields(`Camera Lens Printer Scanner Monitor Display Keyboard Mouse Headphones Earbuds Speaker Soundbar Receiver Amplifier
		Turntable Microphone Router Switch Modem Laptop Notebook Tablet Smartphone Smartwatch Charger Adapter Cable Battery
		Drill Saw Grinder Sander Vacuum Blender Toaster Kettle Iron Shaver Toothbrush Watch Clock Radio Projector Drone Console
		Controller Tripod Flash Backpack Case Bag Stand Mount Dock Hub Drive Card Reader Sensor Thermostat Lamp Bulb Heater Fan`)
	adjectives = strings.Fields(`Wireless Portable Compact Digital Smart Ultra Pro Mini Max Plus Lite Classic Premium Professional Cordless
		Rechargeable Bluetooth Waterproof Noise-Cancelling HD 4K Ergonomic Slim Heavy-Duty Dual Quad Turbo Silent Rugged`)
	cities = strings.Fields(`Amsterdam Berlin Munich Hamburg Paris Lyon London Manchester Madrid Barcelona Milan Rome Vienna Zurich Geneva
		Stockholm Oslo Copenhagen Helsinki Warsaw Prague Budapest Lisbon Dublin Brussels Antwerp Rotterdam Frankfurt Stuttgart
		Cologne Boston Chicago Houston Denver Seattle Toronto Montreal Sydney Melbourne Tokyo Osaka Seoul Shanghai Singapore`)
)

// The entity types, as a build's extractor would call them.
const (
	typeOrg     = "Organization"
	typePerson  = "Person"
	typeProduct = "Product"
)

// entity is one generated name; Of is the index of the base name it
// duplicates, or -1 for a base name.
type entity struct {
	Name, Type string
	Of         int
}

// generator composes distinct names, each base with a core that no other
// base shares (so two bases are two things), from one seed.
type generator struct {
	rng   *rand.Rand
	seen  map[string]bool // every name made, folded
	cores map[string]bool // the cores of the base names
}

func newGenerator(seed uint64) *generator {
	return &generator{rng: rand.New(rand.NewPCG(seed, 0x6d696c6c)), seen: map[string]bool{}, cores: map[string]bool{}}
}

func (g *generator) pick(list []string) string { return list[g.rng.IntN(len(list))] }

// generate returns n distinct names: about dup of them variants of a base
// name (a typo, words run together, another legal form, another order), the rest
// bases, in a shuffled order.
func generate(n int, dup float64, seed uint64) []entity {
	g := newGenerator(seed)
	bases := n - int(float64(n)*dup)
	out := make([]entity, 0, n)
	for len(out) < bases {
		if name, typ, ok := g.base(); ok {
			out = append(out, entity{Name: name, Type: typ, Of: -1})
		}
	}
	for tries := 0; len(out) < n; tries++ {
		if tries > 100*n {
			panic(fmt.Sprintf("million: could not make %d distinct variants", n-bases))
		}
		b := g.rng.IntN(bases)
		v := g.variant(out[b])
		if f := fold(v); v != "" && !g.seen[f] {
			g.seen[f] = true
			out = append(out, entity{Name: v, Type: out[b].Type, Of: b})
		}
	}
	return out
}

// base makes one base name, false when its core or name is taken.
func (g *generator) base() (name, typ string, ok bool) {
	var core string
	switch k := g.rng.IntN(10); {
	case k < 5:
		typ, core = typeOrg, g.pick(roots)+" "+g.pick(industries)
		if g.rng.IntN(3) == 0 {
			core = g.pick(roots) + " " + core
		} else if g.rng.IntN(6) == 0 {
			core = g.pick(cities) + " " + core
		}
		name = core + " " + g.pick(legal)
	case k < 8:
		typ, core = typePerson, g.pick(firstNames)+" "+g.pick(surnames)
		if g.rng.IntN(2) == 0 {
			core = g.pick(firstNames) + " " + core
		}
		name = core
	default:
		typ = typeProduct
		code := fmt.Sprintf("%c%c%d", 'A'+g.rng.IntN(26), 'A'+g.rng.IntN(26), 10+g.rng.IntN(990))
		core = g.pick(brands) + " " + code + " " + g.pick(nouns)
		name = core
		if g.rng.IntN(2) == 0 {
			name = strings.Replace(core, " "+code+" ", " "+code+" "+g.pick(adjectives)+" ", 1)
		}
	}
	c, f := fold(core), fold(name)
	if g.cores[c] || g.seen[f] {
		return "", "", false
	}
	g.cores[c], g.seen[f] = true, true
	return name, typ, true
}

// variant writes base another way, as a second source might.
func (g *generator) variant(b entity) string {
	words := strings.Fields(b.Name)
	switch g.rng.IntN(5) {
	case 0:
		return typo(g.rng, words)
	case 1:
		if len(words) > 2 { // two words run together
			k := g.rng.IntN(len(words) - 1)
			return strings.Join(append(append(words[:k:k], words[k]+words[k+1]), words[k+2:]...), " ")
		}
	}
	switch b.Type {
	case typeOrg:
		last := words[len(words)-1]
		if long, ok := longForm[last]; ok && g.rng.IntN(2) == 0 {
			return strings.Join(append(words[:len(words)-1:len(words)-1], long), " ")
		}
		if g.rng.IntN(2) == 0 {
			return strings.Join(words[:len(words)-1], " ") // without the legal form
		}
		return "The " + b.Name
	case typePerson:
		first, last := words[0], words[len(words)-1]
		switch g.rng.IntN(3) {
		case 0:
			return last + ", " + strings.Join(words[:len(words)-1], " ")
		case 1:
			return first[:1] + ". " + strings.Join(words[1:], " ")
		}
		return "Dr. " + b.Name
	default:
		for i, w := range words {
			if isCode(w) {
				words[i] = w[:2] + "-" + w[2:]
				return strings.Join(words, " ")
			}
		}
		return strings.Join(words[1:], " ") // without the brand
	}
}

// typo swaps two neighbouring letters of a long word, or returns "".
func typo(rng *rand.Rand, words []string) string {
	out := append([]string(nil), words...)
	for _, i := range rng.Perm(len(out)) {
		r := []rune(out[i])
		if len(r) < 5 || isCode(out[i]) {
			continue
		}
		k := 1 + rng.IntN(len(r)-3)
		r[k], r[k+1] = r[k+1], r[k]
		out[i] = string(r)
		return strings.Join(out, " ")
	}
	return ""
}

func isCode(w string) bool {
	return len(w) >= 4 && unicode.IsUpper(rune(w[0])) && unicode.IsUpper(rune(w[1])) && unicode.IsDigit(rune(w[2]))
}

func fold(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
