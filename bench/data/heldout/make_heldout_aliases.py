#!/usr/bin/env python3
"""Make a held-out evaluation set of brand/company name surface forms.

Writes ``heldout_aliases.csv`` (next to this script) with the columns
``surface,entity,class``: ``surface`` is a name as it may be written in the
answer of a large language model, ``entity`` the canonical name it stands for
(the label) and ``class`` the variation that produced it (``base`` for the
canonical name itself; two classes joined with ``+`` when a variant combines
them).

How it is made (standard library only, ``random.Random(2026)``, deterministic):

* Entities: about 340 well-known real companies/brands typed in below, plus
  invented brand names built from syllable lists, generic business words
  ("Foods", "Bank", "Analytics", ...), colour/nature words and surnames, each
  with a home country.  About 10-15 % of the entities belong to families of
  *distinct* brands that must not be merged: names differing by one or two
  letters or a suffix ("Alder"/"Alden"/"Alderson") and names sharing their
  first word ("Nova Bank"/"Nova Foods", "Mitsubishi Motors"/"Mitsubishi
  Electric").
* Variants: every entity gets its base form plus 2-9 variants.  Each variant
  applies one class (about a quarter apply two): case, accent, legal
  (legal form added / removed / rewritten), qualifier (country or region
  after the name), article, spacing (spaces, hyphens, "&"/"and"), typo1 (one
  edit), typo2 (two edits, long names only), abbreviation (initials or the
  leading words; about 10 % of multi-word names).
* Ambiguity filter: a surface is dropped when its key (accents folded,
  lower-cased, everything but letters and digits removed - a stricter form of
  "lower-cased, punctuation-stripped, whitespace-collapsed") equals the key of
  any generated or canonical-derived form of another entity.  Surfaces are
  unique in the file.
"""

import csv
import os
import random
import re
import sys
import unicodedata
from collections import Counter

SEED = 2026
N_ENTITIES = 3400
HERE = os.path.dirname(os.path.abspath(__file__))
OUT_PATH = os.path.join(HERE, "heldout_aliases.csv")

# ---------------------------------------------------------------------------
# Real companies / brands.  Format: canonical|country|abbreviations(;)
# A "^" inside the name marks a place where writers sometimes split the word.
# ---------------------------------------------------------------------------
REAL = """
Apple Inc.|US
Microsoft Corporation|US
Alphabet Inc.|US
Google|US
Amazon|US
Meta Platforms|US|Meta
Netflix|US
Tesla, Inc.|US
NVIDIA Corporation|US
Intel Corporation|US
Advanced Micro Devices|US|AMD
International Business Machines|US|IBM
Hewlett-Packard|US|HP
Dell Technologies|US|Dell
Cisco Systems|US|Cisco
Oracle Corporation|US
Salesforce|US
Adobe Inc.|US
PayPal|US
eBay|US
Qualcomm|US
Texas Instruments|US|TI
General Motors|US|GM
General Electric|US|GE
General Mills|US
Ford Motor Company|US
Chevrolet|US
Johnson & Johnson|US|J&J
Johnson Controls|US
Procter & Gamble|US|P&G
The Coca-Cola Company|US
PepsiCo|US
McDonald's|US
Starbucks|US
Wal^mart|US
Costco Wholesale|US|Costco
Target Corporation|US
The Home Depot|US
Lowe's|US
Nike, Inc.|US
Under Armour|US
The North Face|US
Patagonia|US
Levi Strauss & Co.|US
Ralph Lauren|US
Estée Lauder|US
Colgate-Palmolive|US
Kimberly-Clark|US
Kellogg's|US
The Kraft Heinz Company|US
Mondelēz International|US
The Hershey Company|US
Mars, Incorporated|US
Ben & Jerry's|US
Häagen-Dazs|US
Pfizer|US
Merck & Co.|US
Eli Lilly and Company|US
AbbVie|US
Bristol-Myers Squibb|US|BMS
Moderna|US
3M|US
The Boeing Company|US
Lockheed Martin|US
Raytheon Technologies|US
Caterpillar Inc.|US
Deere & Company|US
Honeywell|US
American Airlines|US
American Express|US|Amex
Delta Air Lines|US
United Airlines|US
Southwest Airlines|US
JPMorgan Chase|US
Bank of America|US|BofA
Wells Fargo|US
Citigroup|US
Goldman Sachs|US
Morgan Stanley|US
Visa Inc.|US
Master^card|US
United Parcel Service|US|UPS
FedEx|US
ExxonMobil|US
Chevron Corporation|US
ConocoPhillips|US
Phillips 66|US
The Walt Disney Company|US
Warner Bros. Discovery|US
Comcast|US
Verizon Communications|US|Verizon
AT&T|US
T-Mobile US|US
Uber Technologies|US|Uber
Air^bnb|US
Zoom Video Communications|US|Zoom
Kentucky Fried Chicken|US|KFC
Burger King|US
Subway|US
Domino's Pizza|US
Pizza Hut|US
Taco Bell|US
Wendy's|US
Dunkin'|US
Gap Inc.|US
Victoria's Secret|US
Bath & Body Works|US
Gillette|US
Duracell|US
Whirlpool Corporation|US
Harley-Davidson|US
Jeep|US
Cadillac|US
Chrysler|US
Goodyear Tire & Rubber Company|US|Goodyear
Sears|US
Macy's|US
Best Buy|US
Eastman Kodak Company|US|Kodak
Xerox|US
Motorola Solutions|US
Fitbit|US
GoPro|US
LinkedIn|US
YouTube|US
Instagram|US
WhatsApp|US
Snap Inc.|US
Pinterest|US
Drop^box|US
Slack Technologies|US|Slack
Campbell Soup Company|US|Campbell's
Tyson Foods|US
Marriott International|US|Marriott
Hilton Worldwide|US|Hilton
Hyatt Hotels|US|Hyatt
Expedia Group|US|Expedia
Booking Holdings|US
Abbott Laboratories|US|Abbott
Bausch & Lomb|US
Kiehl's|US
Clorox|US
Hasbro|US
Mattel|US
Crocs|US
Skechers|US
New Balance|US
Converse|US
Vans|US
Timberland|US
Columbia Sportswear|US|Columbia
Oakley|US
Medtronic|IE
Accenture|IE
Toyota Motor Corporation|JP
Honda Motor Co., Ltd.|JP
Nissan Motor Co., Ltd.|JP
Nissin Foods|JP
Mazda|JP
Subaru Corporation|JP
Suzuki Motor Corporation|JP
Mitsubishi Motors|JP
Mitsubishi Electric|JP
Mitsubishi Heavy Industries|JP|MHI
Mitsubishi UFJ Financial Group|JP|MUFG
Sony Group Corporation|JP
Panasonic|JP
Canon Inc.|JP
Nikon|JP
Olympus|JP
Fuji^film|JP
Casio|JP
Hitachi|JP
Toshiba|JP
Sharp Corporation|JP
Ricoh|JP
Yamaha Corporation|JP
Kawasaki Heavy Industries|JP|KHI
Bridgestone|JP
Uniqlo|JP
Shiseido|JP
Nintendo|JP
Sega|JP
Bandai Namco|JP
Kirin Holdings|JP|Kirin
Asahi Group|JP
Suntory|JP
Ajinomoto|JP
Takeda Pharmaceutical|JP|Takeda
Seiko|JP
Daikin Industries|JP|Daikin
Muji|JP
Lexus|JP
Asics|JP
SoftBank Group|JP
Rakuten|JP
Nomura Holdings|JP|Nomura
Kao Corporation|JP
Denso|JP
Samsung Electronics|KR
Samsung SDI|KR
Samsung Biologics|KR
LG Electronics|KR
LG Chem|KR
Hyundai Motor Company|KR
Hyundai Heavy Industries|KR|HHI
Kia Corporation|KR
SK Hynix|KR
Naver|KR
Kakao|KR
Amorepacific|KR
Lotte Corporation|KR
Huawei Technologies|CN|Huawei
Xiaomi|CN
Lenovo|CN
Alibaba Group|CN|Alibaba
Tencent|CN
Baidu|CN
BYD Company|CN
Haier|CN
Oppo|CN
DJI|CN
ByteDance|CN
Geely|CN
Tsingtao Brewery|CN|Tsingtao
Industrial and Commercial Bank of China|CN|ICBC
China Mobile|CN
Taiwan Semiconductor Manufacturing Company|TW|TSMC
Foxconn|TW
Asus|TW
Acer|TW
HTC Corporation|TW
Cathay Pacific|HK
HSBC Holdings|GB|HSBC
Siemens AG|DE
Siemens Healthineers|DE
Siemens Energy|DE
Volkswagen|DE|VW
BMW|DE
Mercedes-Benz|DE
Audi AG|DE
Porsche|DE
Bosch|DE
Bayer AG|DE
BASF SE|DE
Merck KGaA|DE
SAP SE|DE
Adidas|DE
Puma SE|DE
Allianz|DE
Deutsche Bank|DE
Deutsche Telekom|DE
DHL Group|DE
Lufthansa|DE
Continental AG|DE
Henkel|DE
Beiersdorf|DE
Nivea|DE
Haribo|DE
Dr. Oetker|DE
Aldi|DE
Lidl|DE
Miele|DE
Carl Zeiss AG|DE
Hugo Boss|DE
Löwenbräu|DE
Müller|DE
Rewe|DE
Infineon Technologies|DE|Infineon
Bertelsmann|DE
Mont^blanc|DE
Birkenstock|DE
ThyssenKrupp|DE
Faber-Castell|DE
L'Oréal|FR
LVMH Moët Hennessy Louis Vuitton|FR|LVMH
Louis Vuitton|FR|LV
Hermès|FR
Chanel|FR
Christian Dior|FR
Kering|FR
Danone|FR
Pernod Ricard|FR
Michelin|FR
Renault|FR
Peugeot|FR
Citroën|FR
Airbus SE|NL
TotalEnergies|FR
Société Générale|FR
Crédit Agricole|FR
BNP Paribas|FR
AXA|FR
Carrefour|FR
Orange S.A.|FR
Sanofi|FR
Dassault Systèmes|FR
Schneider Electric|FR
Saint-Gobain|FR
Lancôme|FR
Yves Saint Laurent|FR|YSL
Air France|FR
Thales Group|FR|Thales
Capgemini|FR
Decathlon|FR
Lacoste|FR
Chloé|FR
Évian|FR
Perrier|FR
Moët & Chandon|FR
Nespresso|CH
Unilever|GB
Shell plc|GB
Barclays|GB
Lloyds Banking Group|GB|Lloyds
Vodafone|GB
GlaxoSmithKline|GB|GSK
AstraZeneca|GB
Rolls-Royce Holdings|GB|Rolls-Royce
Jaguar Land Rover|GB|JLR
Tesco|GB
Sainsbury's|GB
Marks & Spencer|GB|M&S
Burberry|GB
Dyson|GB
Diageo|GB
British Airways|GB|BA
Virgin Atlantic|GB
BAE Systems|GB
Reckitt Benckiser|GB|Reckitt
The Body Shop|GB
Aston Martin|GB
Bentley Motors|GB
Cadbury|GB
Twinings|GB
Primark|GB
Arm Holdings|GB
Revolut|GB
Standard Chartered|GB
Prudential plc|GB
Nestlé|CH
Novartis|CH
Roche Holding|CH|Roche
ABB Ltd|CH
UBS Group|CH
Credit Suisse|CH
Zürich Insurance Group|CH
Swatch Group|CH|Swatch
Lindt & Sprüngli|CH
Logitech|CH
Rolex|CH
Omega|CH
TAG Heuer|CH
Victorinox|CH
Holcim|CH
Philips|NL
Heineken N.V.|NL
ING Group|NL
Ahold Delhaize|NL
ASML Holding|NL|ASML
KLM Royal Dutch Airlines|NL|KLM
Booking.com|NL
TomTom|NL
Anheuser-Busch InBev|BE|AB InBev
Solvay|BE
Godiva|BE
Ferrari N.V.|IT
Fiat|IT
Lamborghini|IT
Maserati|IT
Alfa Romeo|IT
Gucci|IT
Prada|IT
Giorgio Armani|IT
Versace|IT
Barilla|IT
Ferrero|IT
Lavazza|IT
Pirelli|IT
Eni S.p.A.|IT
Enel|IT
Luxottica|IT
Benetton|IT
Ducati|IT
Piaggio|IT
Intesa Sanpaolo|IT
UniCredit|IT
Bulgari|IT
Campari|IT
Ray-Ban|IT
IKEA|SE
Volvo Cars|SE
Volvo Group|SE
Ericsson|SE
Spotify|SE
Hennes & Mauritz|SE|H&M
Electrolux|SE
Saab AB|SE
Scania|SE
Tetra Pak|SE
Oatly|SE
Nokia Oyj|FI
Kone|FI
Fiskars|FI
Marimekko|FI
Finnair|FI
Maersk|DK
Carlsberg|DK
Novo Nordisk|DK
Pandora|DK
Lego|DK
Vestas Wind Systems|DK|Vestas
Bang & Olufsen|DK|B&O
Ørsted|DK
Equinor ASA|NO
Norsk Hydro|NO
Telenor|NO
Zara|ES
Inditex|ES
Telefónica|ES
Banco Santander|ES
BBVA|ES
Iberdrola|ES
Repsol|ES
SEAT|ES
Mango|ES
El Corte Inglés|ES
Iberia|ES
Mercadona|ES
Tata Motors|IN
Tata Steel|IN
Tata Consultancy Services|IN|TCS
Infosys|IN
Wipro|IN
Reliance Industries|IN
Mahindra & Mahindra|IN
HDFC Bank|IN
Bajaj Auto|IN
Hero MotoCorp|IN
Larsen & Toubro|IN|L&T
Bharti Airtel|IN
Amul|IN
BHP|AU
Qantas Airways|AU|Qantas
Commonwealth Bank|AU|CommBank
Woolworths Group|AU
Atlassian|AU
Canva|AU
Royal Bank of Canada|CA|RBC
Bombardier|CA
Tim Hortons|CA
Lululemon Athletica|CA|Lululemon
BlackBerry|CA
Shopify|CA
Petrobras|BR
Vale S.A.|BR
Embraer|BR
Havaianas|BR
Grupo Bimbo|MX
Cemex|MX
Singapore Airlines|SG|SIA
DBS Bank|SG
Grab Holdings|SG
Petronas|MY
AirAsia|MY
Bank Central Asia|ID|BCA
Garuda Indonesia|ID
Emirates|AE
Etihad Airways|AE|Etihad
Turkish Airlines|TR
Saudi Aramco|SA
Kaspersky|RU
Škoda Auto|CZ
Red Bull|AT
Swarovski|AT
KTM|AT
Jollibee|PH
Teva Pharmaceutical|IL|Teva
Wix.com|IL
"""

# Real names that form families of distinct brands (near spellings / shared
# first word).  Used only for the statistics printed at the end.
REAL_FAMILIES = [
    ["Mitsubishi Motors", "Mitsubishi Electric", "Mitsubishi Heavy Industries",
     "Mitsubishi UFJ Financial Group"],
    ["Samsung Electronics", "Samsung SDI", "Samsung Biologics"],
    ["LG Electronics", "LG Chem"],
    ["Hyundai Motor Company", "Hyundai Heavy Industries"],
    ["Tata Motors", "Tata Steel", "Tata Consultancy Services"],
    ["General Motors", "General Electric", "General Mills"],
    ["Johnson & Johnson", "Johnson Controls"],
    ["American Airlines", "American Express"],
    ["Siemens AG", "Siemens Healthineers", "Siemens Energy"],
    ["Deutsche Bank", "Deutsche Telekom"],
    ["Volvo Cars", "Volvo Group"],
    ["Merck & Co.", "Merck KGaA"],
    ["Philips", "Phillips 66"],
    ["Nissan Motor Co., Ltd.", "Nissin Foods"],
    ["Bosch", "Bausch & Lomb"],
    ["Asus", "Asics"],
    ["Aldi", "Audi AG"],
    ["Lidl", "Lindt & Sprüngli"],
    ["SEAT", "Sears"],
    ["Casio", "Cisco Systems"],
    ["Louis Vuitton", "LVMH Moët Hennessy Louis Vuitton"],
]

# ---------------------------------------------------------------------------
# Legal forms
# ---------------------------------------------------------------------------
LEGAL_FAMILIES = {
    "inc": ["Inc.", "Inc", "Incorporated"],
    "ltd": ["Ltd", "Ltd.", "Limited"],
    "llc": ["LLC", "L.L.C."],
    "llp": ["LLP"],
    "corp": ["Corp.", "Corporation", "Corp"],
    "co": ["Co.", "Company", "Co"],
    "andco": ["& Co.", "& Co", "& Company", "and Company"],
    "coltd": ["Co., Ltd.", "Co.,Ltd.", "Co. Ltd.", "Co., Ltd", "Company Limited"],
    "plc": ["PLC", "plc", "Plc", "p.l.c."],
    "gmbh": ["GmbH"],
    "gmbhcokg": ["GmbH & Co. KG", "GmbH & Co KG"],
    "ag": ["AG"],
    "kgaa": ["KGaA"],
    "se": ["SE"],
    "sa": ["S.A.", "SA"],
    "sas": ["SAS", "S.A.S."],
    "nv": ["N.V.", "NV"],
    "bv": ["B.V.", "BV"],
    "spa": ["S.p.A.", "SpA", "S.p.A"],
    "srl": ["S.r.l.", "Srl", "S.R.L."],
    "kk": ["K.K.", "KK"],
    "oyj": ["Oyj"],
    "oy": ["Oy"],
    "ab": ["AB", "AB (publ)"],
    "as_dk": ["A/S"],
    "asa": ["ASA"],
    "as_no": ["AS"],
    "as_tr": ["A.Ş.", "AŞ"],
    "sl": ["S.L.", "SL"],
    "pty": ["Pty Ltd", "Pty. Ltd.", "Pty Limited"],
    "pte": ["Pte. Ltd.", "Pte Ltd"],
    "sdnbhd": ["Sdn. Bhd.", "Sdn Bhd"],
    "bhd": ["Bhd", "Berhad"],
    "sadecv": ["S.A. de C.V.", "SA de CV"],
    "pvt": ["Pvt. Ltd.", "Pvt Ltd", "Private Limited"],
    "ltda": ["Ltda.", "Ltda"],
    "tbk": ["Tbk"],
    "pjsc": ["PJSC"],
    "as_cz": ["a.s."],
    "sro": ["s.r.o."],
}
LEGAL_WRITING_FAMILY = {}
for _fam, _writings in LEGAL_FAMILIES.items():
    for _w in _writings:
        LEGAL_WRITING_FAMILY.setdefault(_w, _fam)
ALL_LEGAL_WRITINGS = sorted(LEGAL_WRITING_FAMILY, key=len, reverse=True)
COMMA_OK = {"Inc.", "Inc", "Incorporated", "LLC", "L.L.C.", "Ltd", "Ltd.",
            "Limited", "LLP", "Corp.", "Corp", "Corporation", "S.A.",
            "S.p.A.", "S.A. de C.V."}
PREFIX_LEGAL = ["PT", "株式会社"]

COUNTRY_LEGAL = {
    "US": ["inc", "inc", "inc", "llc", "corp", "corp", "co", "andco", "llp"],
    "GB": ["ltd", "ltd", "plc", "plc", "llp"],
    "IE": ["ltd", "plc"],
    "DE": ["gmbh", "gmbh", "ag", "ag", "se", "gmbhcokg", "kgaa"],
    "AT": ["gmbh", "ag"],
    "CH": ["ag", "ag", "sa", "gmbh"],
    "FR": ["sa", "sa", "sas", "se"],
    "JP": ["coltd", "coltd", "kk", "corp", "inc"],
    "KR": ["coltd", "coltd", "corp", "inc"],
    "CN": ["coltd", "coltd", "ltd", "corp"],
    "TW": ["coltd", "corp", "inc"],
    "HK": ["ltd", "ltd", "coltd"],
    "IT": ["spa", "spa", "srl"],
    "NL": ["nv", "bv"],
    "BE": ["nv", "sa"],
    "SE": ["ab", "ab"],
    "FI": ["oyj", "oy"],
    "DK": ["as_dk"],
    "NO": ["asa", "as_no"],
    "ES": ["sa", "sl"],
    "IN": ["ltd", "pvt", "ltd"],
    "AU": ["pty", "ltd", "ltd"],
    "CA": ["inc", "ltd", "corp"],
    "BR": ["sa", "ltda"],
    "MX": ["sadecv", "sadecv", "sa"],
    "SG": ["pte", "ltd"],
    "MY": ["sdnbhd", "bhd"],
    "ID": ["tbk"],
    "AE": ["llc", "ltd"],
    "TR": ["as_tr"],
    "SA": ["ltd"],
    "RU": ["pjsc"],
    "CZ": ["as_cz", "sro"],
    "PH": ["inc", "corp"],
    "IL": ["ltd"],
}
INTERNATIONAL_LEGAL = ["inc", "ltd", "corp", "llc", "coltd", "plc"]

COUNTRY_NAMES = {
    "US": ["USA", "USA", "US", "U.S.", "United States"],
    "GB": ["UK", "UK", "U.K.", "United Kingdom", "England"],
    "IE": ["Ireland"],
    "DE": ["Germany", "Germany", "Deutschland"],
    "AT": ["Austria"],
    "CH": ["Switzerland"],
    "FR": ["France"],
    "JP": ["Japan"],
    "KR": ["South Korea", "Korea"],
    "CN": ["China", "China", "PRC"],
    "TW": ["Taiwan"],
    "HK": ["Hong Kong"],
    "IT": ["Italy", "Italy", "Italia"],
    "NL": ["Netherlands", "The Netherlands", "Holland"],
    "BE": ["Belgium"],
    "SE": ["Sweden"],
    "FI": ["Finland"],
    "DK": ["Denmark"],
    "NO": ["Norway"],
    "ES": ["Spain", "Spain", "España"],
    "IN": ["India"],
    "AU": ["Australia"],
    "CA": ["Canada"],
    "BR": ["Brazil", "Brasil"],
    "MX": ["Mexico", "México"],
    "SG": ["Singapore"],
    "MY": ["Malaysia"],
    "ID": ["Indonesia"],
    "AE": ["UAE", "United Arab Emirates"],
    "TR": ["Turkey", "Türkiye"],
    "SA": ["Saudi Arabia", "KSA"],
    "RU": ["Russia"],
    "CZ": ["Czech Republic", "Czechia"],
    "PH": ["Philippines"],
    "IL": ["Israel"],
}
REGIONS = {
    "US": ["North America", "Americas"], "CA": ["North America"],
    "MX": ["Latin America", "LATAM"], "BR": ["Latin America", "LATAM"],
    "JP": ["Asia", "APAC"], "KR": ["Asia", "APAC"], "CN": ["Asia", "APAC"],
    "TW": ["Asia", "APAC"], "HK": ["Asia", "APAC"], "SG": ["Asia", "APAC", "SEA"],
    "MY": ["Asia", "SEA"], "ID": ["Asia", "SEA"], "PH": ["Asia", "SEA"],
    "IN": ["Asia", "South Asia"], "AU": ["APAC", "Oceania"],
    "AE": ["Middle East", "MENA"], "SA": ["Middle East", "MENA"],
    "TR": ["Europe", "Middle East"], "IL": ["Middle East"],
}
EUROPE = ["Europe", "Europe", "EU", "EMEA"]
ARTICLES_BY_COUNTRY = {
    "FR": ["La", "Le"], "ES": ["El", "La"], "MX": ["El", "La"],
    "DE": ["Die", "Der", "Das"], "AT": ["Die", "Der", "Das"],
    "CH": ["Die", "La", "Le"], "IT": ["La"], "BE": ["La", "Le"],
}
ALL_ARTICLES = ["The", "La", "Le", "El", "Die", "Der", "Das"]

INVENTED_COUNTRIES = (
    ["US"] * 30 + ["GB"] * 8 + ["DE"] * 8 + ["FR"] * 6 + ["JP"] * 6 +
    ["IT"] * 4 + ["CN"] * 4 + ["IN"] * 4 + ["NL"] * 3 + ["SE"] * 3 +
    ["CH"] * 3 + ["ES"] * 3 + ["KR"] * 3 + ["CA"] * 3 + ["AU"] * 3 +
    ["BR"] * 2 + ["MX"] * 1 + ["FI"] * 1 + ["DK"] * 1 + ["NO"] * 1 +
    ["SG"] * 1 + ["MY"] * 1 + ["ID"] * 1 + ["AT"] * 1 + ["BE"] * 1 +
    ["IE"] * 1 + ["TW"] * 1 + ["TR"] * 1 + ["AE"] * 1 + ["CZ"] * 1)

# ---------------------------------------------------------------------------
# Word material for invented names
# ---------------------------------------------------------------------------
ONSETS = ["b", "br", "c", "cl", "cr", "d", "dr", "f", "fl", "fr", "g", "gl",
          "gr", "h", "j", "k", "kl", "kr", "l", "m", "n", "p", "pl", "pr",
          "qu", "r", "s", "sk", "sl", "st", "t", "tr", "v", "vr", "w", "z",
          "th", "sh", "ch", "bl", "sp"]
VOWELS = ["a", "e", "i", "o", "u", "a", "e", "o", "a", "i", "y", "ea", "au"]
MID_ONSETS = ["b", "d", "k", "l", "m", "n", "r", "s", "t", "v", "z", "g", "p",
              "f", "l", "r", "n", "t"]
MID_VOWELS = ["a", "e", "i", "o", "u", "a", "e", "o", "i"]
CODAS = ["", "", "", "", "", "", "", "n", "r", "l", "s", "m", "x", "n", "r"]
ENDINGS = ["a", "o", "ia", "ix", "on", "us", "is", "ex", "en", "ar", "or",
           "io", "ara", "ena", "ika", "ium", "ora", "elle", "ette", "ano",
           "ova", "yx", "eon", "ax", "ent", "ine", "iva", "ada", "ero", "ity",
           "os", "um", "ra", "ta", "lo", "na", "ro", "via", "lis", "nix", "dex",
           "tra", "mi", "sa", "vo", "za", "el", "er", "an", "ic"]
GENERICS = [
    "Foods", "Bank", "Motors", "Analytics", "Pharma", "Airlines", "Systems",
    "Technologies", "Labs", "Energy", "Solutions", "Logistics", "Insurance",
    "Capital", "Health", "Robotics", "Software", "Networks", "Media",
    "Studios", "Brewing", "Coffee", "Apparel", "Cosmetics", "Beverages",
    "Group", "Holdings", "Partners", "Industries", "Electronics", "Telecom",
    "Dairy", "Bakery", "Outdoor", "Sports", "Travel", "Hotels",
    "Pharmaceuticals", "Biotech", "Medical", "Dental", "Semiconductors",
    "Mobility", "Aerospace", "Marine", "Chemicals", "Steel", "Textiles",
    "Furniture", "Home", "Pet Care", "Organics", "Wines", "Spirits", "Tea",
    "Water", "Security", "Cloud", "Data", "AI", "Payments", "Finance",
    "Credit Union", "Realty", "Construction", "Engineering", "Mining", "Solar",
    "Wind Power", "Toys", "Games", "Audio", "Optics", "Watches", "Jewelry",
    "Footwear", "Eyewear", "Skincare", "Nutrition", "Fitness", "Learning",
    "Publishing", "Records", "Pictures", "Broadcasting", "Freight", "Shipping",
    "Rail", "Express", "Couriers", "Markets", "Grocers", "Pharmacy", "Clinics",
    "Diagnostics", "Vision", "Cycles", "Tyres", "Paints", "Cement", "Glass",
    "Paper", "Packaging", "Appliances", "Lighting", "Batteries", "Drones",
    "Ventures", "Investments", "Bancorp", "Airways", "Cruises", "Kitchens",
    "Chocolate", "Snacks", "Farms", "Seeds", "Fisheries", "Candles", "Fashion",
    "Boutique", "Outfitters", "Gear", "Tools", "Machinery", "Automotive"]
MID_GENERICS = ["Health", "Data", "Home", "Auto", "Global", "Food", "Bio",
                "Green", "Smart", "Digital", "Power", "Life", "Water", "Air",
                "Travel", "Financial", "Medical", "Energy", "Retail", "Sports"]
END_GENERICS = ["Systems", "Solutions", "Group", "Partners", "Services",
                "Technologies", "Industries", "Networks", "Holdings", "Labs",
                "Products", "Brands", "International", "Worldwide"]
ADJECTIVES = ["Silver", "Blue", "Red", "Green", "Golden", "Black", "White",
              "Iron", "Stone", "Oak", "Pine", "Cedar", "Maple", "River",
              "Summit", "North", "South", "East", "West", "Bright", "Clear",
              "True", "Swift", "Bold", "Prime", "Crystal", "Coastal", "Urban",
              "Polar", "Lunar", "Evergreen", "Granite", "Copper", "Amber",
              "Crimson", "Sterling", "Pioneer", "Frontier", "Liberty",
              "Heritage", "Meridian", "Horizon", "Willow", "Birch", "Misty",
              "Wild", "Quiet", "Little", "Grand", "Royal", "Open", "Hidden"]
NOUNS = ["Creek", "Ridge", "Peak", "Valley", "Field", "Bay", "Rock", "Leaf",
         "Wave", "Star", "Bridge", "Gate", "Point", "Lake", "Brook", "Hill",
         "Grove", "Crest", "Wood", "Arrow", "Anchor", "Lantern", "Compass",
         "Forge", "Harbor", "Mill", "Spring", "Path", "Trail", "Haven",
         "Meadow", "Canyon", "Fox", "Owl", "Hawk", "Bear", "Falcon", "Otter",
         "Orchard", "Hollow", "Key", "Tower", "Cove", "Island", "Mountain"]
SURNAMES = ["Hartwell", "Finch", "Morrow", "Ashby", "Calloway", "Pembrook",
            "Thornton", "Whitlock", "Merriweather", "Kendrick", "Lowell",
            "Prescott", "Ellery", "Radcliffe", "Sutton", "Barlow", "Haskins",
            "Wexford", "Dunmore", "Fairbanks", "Gresham", "Holloway", "Ingram",
            "Jessop", "Kingsley", "Langford", "Mabry", "Norwood", "Oakes",
            "Pryor", "Quimby", "Rowntree", "Sandford", "Tolliver",
            "Underhill", "Vance", "Whitmore", "Yardley", "Abernathy",
            "Blakemore", "Carrington", "Delacroix", "Everly", "Fennimore",
            "Galloway", "Hargrove", "Iverson", "Jarrett", "Kessler", "Lindqvist",
            "Marchetti", "Nakamura", "Okafor", "Petrov", "Rasmussen",
            "Schuster", "Takahashi", "Vermeulen", "Weissmann", "Zimmer"]
TECH_SUFFIXES = ["Tek", "Soft", "Med", "Link", "Gen", "Byte", "Sense", "Core",
                 "Works", "Lab", "Wave", "Hub", "Net", "Pay", "Go", "Cloud",
                 "Cart", "Mart", "Flow", "Pulse", "Sync", "Logic", "Grid",
                 "Vista", "Point", "Smart", "Bio", "Mind", "Path", "Box",
                 "Ware", "Dock", "Field", "Nest", "Bay"]
FAMILY_WORDS = ["Nova", "Apex", "Summit", "Atlas", "Orion", "Zenith", "Vertex",
                "Pinnacle", "Beacon", "Keystone", "Crescent", "Aurora",
                "Vanguard", "Titan", "Polaris", "Nexus", "Cobalt", "Sierra",
                "Delta", "Alpine", "Sequoia", "Harbor", "Phoenix", "Juniper",
                "Magnolia", "Solstice", "Equinox", "Cascade", "Echo", "Falcon"]
FAMILY_SUFFIXES = ["on", "son", "a", "ia", "ix", "is", "er", "ex", "o", "en",
                   "ell", "ton", "ova", "us"]
ACCENT_ADD = {"e": ["é", "é", "é", "é", "è", "ë"], "a": ["á", "à", "ä"],
              "o": ["ö", "ó", "ô"], "u": ["ü", "ú"], "i": ["í", "ï"]}
GERMAN_FOLD = {"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue"}
SPECIAL_FOLD = {"ø": "o", "Ø": "O", "æ": "ae", "Æ": "Ae", "œ": "oe", "Œ": "Oe",
                "ß": "ss", "ł": "l", "Ł": "L", "ı": "i", "đ": "d"}

KEYBOARD_ROWS = ["qwertyuiop", "asdfghjkl", "zxcvbnm"]
NEIGHBOURS = {}
for _r, _row in enumerate(KEYBOARD_ROWS):
    for _i, _ch in enumerate(_row):
        _nb = []
        for _dr, _offs in ((0, (-1, 1)), (-1, (0, 1)), (1, (-1, 0))):
            _rr = _r + _dr
            if 0 <= _rr < len(KEYBOARD_ROWS):
                for _o in _offs:
                    _j = _i + _o
                    if 0 <= _j < len(KEYBOARD_ROWS[_rr]):
                        _nb.append(KEYBOARD_ROWS[_rr][_j])
        NEIGHBOURS[_ch] = _nb
VOWEL_SET = "aeiouy"

CLASS_ORDER = ["abbreviation", "article", "legal", "spacing", "accent",
               "typo1", "typo2", "qualifier", "case"]


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------
def fold_accents(s):
    s = "".join(SPECIAL_FOLD.get(c, c) for c in s)
    d = unicodedata.normalize("NFKD", s)
    return "".join(c for c in d if not unicodedata.combining(c))


def strict_key(s):
    """Accent-folded, lower-cased, letters and digits only."""
    return "".join(c for c in fold_accents(s).lower() if c.isalnum())


def has_accent(s):
    return fold_accents(s) != s


def words_of(core):
    return [w for w in core.split(" ") if w]


def render(st):
    core = st["core"]
    legal = st["legal"]
    if legal:
        if st["pos"] == "prefix":
            core = legal + (" " if legal == "PT" else "") + core
        else:
            core = core + st["sep"] + legal
    if st["article"]:
        core = st["article"] + " " + core
    return core


def letter_count(s):
    return sum(1 for c in s if c.isalpha())


def parse_real(line):
    parts = line.split("|")
    raw, country = parts[0].strip(), parts[1].strip()
    abbrs = [a for a in (parts[2].split(";") if len(parts) > 2 else []) if a]
    splits = []
    if "^" in raw:
        splits.append(raw.index("^"))
        raw = raw.replace("^", "")
    canonical = raw
    article = ""
    rest = raw
    for art in ALL_ARTICLES:
        if rest.startswith(art + " ") and len(rest.split(" ")) > 2:
            article, rest = art, rest[len(art) + 1:]
            break
    legal, sep, pos = "", "", "suffix"
    for w in ALL_LEGAL_WRITINGS:
        for s in (", ", " "):
            if rest.endswith(s + w) and len(rest) > len(s + w):
                legal, sep = w, s
                rest = rest[: -len(s + w)]
                break
        if legal:
            break
    if article and splits:
        splits = [i - len(article) - 1 for i in splits]
    return {"canonical": canonical, "country": country, "article": article,
            "core": rest, "legal": legal, "sep": sep, "pos": pos,
            "abbrs": abbrs, "splits": splits, "kind": "real", "family": None,
            "pattern": "real"}


# ---------------------------------------------------------------------------
# Invented names
# ---------------------------------------------------------------------------
BAD_SEQ = re.compile(r"(.)\1\1|([^lnrst])\2|[bcdfghjklmnpqrstvwxz]{3}|"
                     r"[aeiouy]{3}|qu[aeiouy]{2}|[aeiouy]y|y[aeiouy]|"
                     r"(ea|au|ia|io)[aeiou]|[aeiou](ea|au)|.*(a|e|i|o|u).*\1\1")


def make_stem(rng, max_syl=3, min_len=4, max_len=10):
    while True:
        parts = []
        onset = "" if rng.random() < 0.15 else rng.choice(ONSETS)
        vowel = rng.choice(VOWELS if onset else MID_VOWELS)
        parts.append(onset + vowel + rng.choice(CODAS))
        n_mid = 0 if max_syl <= 2 else (1 if rng.random() < 0.35 else 0)
        for _ in range(n_mid):
            parts.append(rng.choice(MID_ONSETS) + rng.choice(MID_VOWELS))
        end = rng.choice(ENDINGS)
        if parts[-1][-1] in VOWEL_SET and end[0] in VOWEL_SET:
            end = rng.choice(["n", "r", "l", "v", "t", "s", "m", "d"]) + end
        elif parts[-1][-1] not in VOWEL_SET and end[0] not in VOWEL_SET:
            end = rng.choice(MID_VOWELS) + end
        stem = "".join(parts) + end
        if not (min_len <= len(stem) <= max_len):
            continue
        if BAD_SEQ.search(stem):
            continue
        return stem[0].upper() + stem[1:]


def accentuate(rng, word):
    idx = [i for i, c in enumerate(word) if i > 0 and c in ACCENT_ADD]
    if not idx:
        return None
    e_idx = [i for i in idx if word[i] == "e"]
    i = rng.choice(e_idx) if e_idx and rng.random() < 0.6 else rng.choice(idx)
    return word[:i] + rng.choice(ACCENT_ADD[word[i]]) + word[i + 1:]


def family_mutations(rng, stem):
    """Return distinct near-spellings of stem (one/two letters or a suffix)."""
    out = []
    low = stem.lower()
    # change last letter
    cons = "nrlstdmkvx"
    if low[-1] in cons:
        out.append(stem[:-1] + rng.choice([c for c in cons if c != low[-1]]))
    else:
        out.append(stem[:-1] + rng.choice([v for v in "aeio" if v != low[-1]]))
    # add a suffix (one, two or three letters)
    for suf in rng.sample(FAMILY_SUFFIXES, 3):
        base = stem
        if stem[-1] in VOWEL_SET and suf[0] in VOWEL_SET:
            base = stem[:-1]
        out.append(base + suf)
    # change an inner vowel
    vi = [i for i, c in enumerate(low) if 0 < i < len(low) - 1 and c in "aeiou"]
    if vi:
        i = rng.choice(vi)
        out.append(stem[:i] + rng.choice([v for v in "aeiou" if v != low[i]])
                   + stem[i + 1:])
    # drop the last letter
    if len(stem) >= 6:
        out.append(stem[:-1])
    res = []
    for m in out:
        if m != stem and m not in res and not BAD_SEQ.search(m.lower()):
            res.append(m)
    rng.shuffle(res)
    return res


class Registry:
    def __init__(self):
        self.entities = []
        self.canon_keys = {}
        self.core_keys = {}
        self.first_words = Counter()     # first word key of multi-word cores
        self.single_cores = set()        # keys of single-word cores

    def fits(self, e, allow_core_dup=False):
        ck, kk = strict_key(e["canonical"]), strict_key(e["core"])
        if not ck or ck in self.canon_keys or ck in self.core_keys:
            return False
        if kk in self.canon_keys:
            return False
        if kk in self.core_keys and not allow_core_dup:
            return False
        ws = words_of(e["core"])
        if len(ws) > 1 and e["kind"] == "invented" and e["family"] is None:
            if strict_key(ws[0]) in self.single_cores:
                return False
        if len(ws) == 1 and e["kind"] == "invented":
            if kk in self.first_words:
                return False
        return True

    def add(self, e):
        e["id"] = len(self.entities)
        self.entities.append(e)
        self.canon_keys[strict_key(e["canonical"])] = e["id"]
        self.core_keys.setdefault(strict_key(e["core"]), e["id"])
        ws = words_of(e["core"])
        if len(ws) > 1:
            self.first_words[strict_key(ws[0])] += 1
        else:
            self.single_cores.add(strict_key(e["core"]))


def new_invented(rng, core, country, pattern, family=None, splits=None,
                 legal_p=0.18, article_p=0.0):
    e = {"core": core, "country": country, "article": "", "legal": "",
         "sep": " ", "pos": "suffix", "abbrs": [], "splits": splits or [],
         "kind": "invented", "family": family, "pattern": pattern}
    if rng.random() < legal_p:
        fam = rng.choice(COUNTRY_LEGAL[country])
        e["legal"] = LEGAL_FAMILIES[fam][0] if rng.random() < 0.6 else \
            rng.choice(LEGAL_FAMILIES[fam])
        if country == "ID" and rng.random() < 0.5:
            e["legal"], e["pos"] = "PT", "prefix"
        elif e["legal"] in COMMA_OK and country == "US" and rng.random() < 0.3:
            e["sep"] = ", "
    if rng.random() < article_p:
        e["article"] = "The"
    e["canonical"] = render(e)
    return e


def invented_core(rng, country):
    r = rng.random()
    if r < 0.28:
        return make_stem(rng), "single", []
    if r < 0.62:
        return make_stem(rng) + " " + rng.choice(GENERICS), "stem_gen", []
    if r < 0.68:
        return (make_stem(rng) + " " + rng.choice(MID_GENERICS) + " " +
                rng.choice(END_GENERICS)), "stem_gen2", []
    if r < 0.72:
        return rng.choice(ADJECTIVES) + " " + rng.choice(NOUNS), "adj_noun", []
    if r < 0.84:
        return (rng.choice(ADJECTIVES) + " " + rng.choice(NOUNS) + " " +
                rng.choice(GENERICS)), "adj_noun_gen", []
    if r < 0.89:
        a, b = rng.sample(SURNAMES, 2)
        joiner = " & " if rng.random() < 0.85 else " and "
        return a + joiner + b, "surnames", []
    if r < 0.91:
        return (rng.choice(SURNAMES) + rng.choice([" & Sons", " Brothers",
                                                   " & Daughters", " Bros."]),
                "surname_sons", [])
    if r < 0.98:
        stem = make_stem(rng, max_syl=2, max_len=7)
        suf = rng.choice(TECH_SUFFIXES)
        f = rng.random()
        if f < 0.5:
            return stem + suf, "compound", [len(stem)]
        if f < 0.8:
            return stem + suf.lower(), "compound", [len(stem)]
        return stem + "-" + suf, "compound", []
    return (rng.choice(["Bank", "Bancorp", "Insurance Company", "Brewery",
                        "University Press"]) + " of " + make_stem(rng)), "of", []


# ---------------------------------------------------------------------------
# Variation operators; each returns a new state or None
# ---------------------------------------------------------------------------
def op_article(rng, st, e):
    st = dict(st)
    if st["article"]:
        st["article"] = ""
    else:
        if st["pos"] == "prefix" and st["legal"]:
            return None
        opts = ARTICLES_BY_COUNTRY.get(e["country"])
        if opts and rng.random() < 0.25:
            st["article"] = rng.choice(opts)
        else:
            st["article"] = "The"
    return st


def pick_legal_writing(rng, fam):
    ws = LEGAL_FAMILIES[fam]
    return ws[0] if rng.random() < 0.55 else rng.choice(ws)


def op_legal(rng, st, e):
    st = dict(st)
    country = e["country"]
    if st["legal"]:
        cur = st["legal"]
        fam = LEGAL_WRITING_FAMILY.get(cur)
        r = rng.random()
        if r < 0.5 and e.get("core_shared"):
            return None
        if r < 0.5:
            st["legal"] = ""
            st["sep"] = " "
            st["pos"] = "suffix"
            return st
        if r < 0.75 and fam and len(LEGAL_FAMILIES[fam]) > 1:
            st["legal"] = rng.choice([w for w in LEGAL_FAMILIES[fam] if w != cur])
            if st["legal"] not in COMMA_OK:
                st["sep"] = " "
            return st
        if r < 0.85 and st["pos"] == "suffix" and cur in COMMA_OK:
            st["sep"] = " " if st["sep"] == ", " else ", "
            return st
        fams = [f for f in COUNTRY_LEGAL[country] + INTERNATIONAL_LEGAL if f != fam]
        st["legal"] = pick_legal_writing(rng, rng.choice(fams))
        st["pos"] = "suffix"
        st["sep"] = ", " if (st["legal"] in COMMA_OK and rng.random() < 0.2) else " "
        return st
    # add a legal form
    if country == "ID" and rng.random() < 0.7:
        st["legal"], st["pos"] = "PT", "prefix"
        st["article"] = ""
        return st
    if country == "JP" and rng.random() < 0.12:
        st["legal"] = "株式会社"
        if rng.random() < 0.5:
            st["pos"] = "prefix"
            st["article"] = ""
        else:
            st["pos"], st["sep"] = "suffix", rng.choice(["", " "])
        return st
    fams = COUNTRY_LEGAL[country] if rng.random() < 0.88 else INTERNATIONAL_LEGAL
    st["legal"] = pick_legal_writing(rng, rng.choice(fams))
    st["pos"] = "suffix"
    st["sep"] = ", " if (st["legal"] in COMMA_OK and rng.random() < 0.25) else " "
    return st


def camel_splits(core):
    out = []
    for i in range(2, len(core)):
        if core[i - 1].islower() and core[i].isupper() and core[i - 2].isalpha():
            out.append(i)
    return out


def op_spacing(rng, st, e):
    core = st["core"]
    opts = []
    if re.search(r"\w-\w", core):
        opts += ["hy2sp", "hy2sp", "hy2none"]
    gaps = [m.start() for m in re.finditer(r"(?<=\w) (?=\w)", core)
            if not re.search(r"(^| )(and|of|&)$", core[:m.start()])
            and not re.match(r" (and|of|&)( |$)", core[m.start():])]
    if gaps:
        opts += ["sp2hy", "sp2none", "sp2none"]
    if "&" in core:
        opts += ["amp2and", "amp2and", "ampspace"]
    if " and " in core:
        opts += ["and2amp"]
    splits = [i for i in (e["splits"] if st["core"] == e["core"] else [])]
    splits += [i for i in camel_splits(core) if i not in splits]
    splits = [i for i in splits if 0 < i < len(core) and core[i - 1] not in " -"
              and core[i] not in " -"]
    if splits:
        opts += ["split_sp", "split_sp", "split_hy"]
    if not opts:
        return None
    kind = rng.choice(opts)
    if kind == "hy2sp":
        new = re.sub(r"(?<=\w)-(?=\w)", " ", core)
    elif kind == "hy2none":
        new = re.sub(r"(?<=\w)-(?=\w)", "", core)
    elif kind in ("sp2hy", "sp2none"):
        rep = "-" if kind == "sp2hy" else ""
        if len(gaps) > 1 and rng.random() < 0.6:
            g = rng.choice(gaps)
            new = core[:g] + rep + core[g + 1:]
        else:
            new = core
            for g in reversed(gaps):
                new = new[:g] + rep + new[g + 1:]
    elif kind == "amp2and":
        new = re.sub(r"\s*&\s*", " and ", core)
    elif kind == "ampspace":
        if " & " in core:
            new = core.replace(" & ", "&")
        else:
            new = re.sub(r"\s*&\s*", " & ", core)
    elif kind == "and2amp":
        new = core.replace(" and ", rng.choice([" & ", " & ", "&"]))
    else:
        i = rng.choice(splits)
        new = core[:i] + (" " if kind == "split_sp" else "-") + core[i:]
    if new == core:
        return None
    st = dict(st)
    st["core"] = new.strip()
    return st


def op_accent(rng, st, e):
    core = st["core"]
    st = dict(st)
    if has_accent(core):
        accented = [i for i, c in enumerate(core) if fold_accents(c) != c]
        r = rng.random()
        if r < 0.25 and any(core[i] in GERMAN_FOLD for i in accented):
            new = "".join(GERMAN_FOLD.get(c, c) for c in core)
            new = fold_accents(new)
        elif r < 0.4 and len(accented) > 1:
            i = rng.choice(accented)
            new = core[:i] + fold_accents(core[i]) + core[i + 1:]
        else:
            new = fold_accents(core)
    else:
        # accents are added to the distinctive (first) word of the name
        ws = [(m.start(), m.group()) for m in re.finditer(r"[A-Za-z]{3,}", core)]
        ws = [x for x in ws if x[1].lower() not in ("and", "the", "of")]
        if not ws:
            return None
        start, w = ws[0] if rng.random() < 0.85 else rng.choice(ws)
        nw = accentuate(rng, w)
        if nw is None:
            return None
        new = core[:start] + nw + core[start + len(w):]
    if new == core:
        return None
    st["core"] = new
    return st


def _same_case(ref, ch):
    return ch.upper() if ref.isupper() else ch


def one_edit(rng, core, avoid=None):
    """Apply one typo edit; return (new_core, position) or None."""
    spans = [(m.start(), m.end()) for m in re.finditer(r"[^\W\d_]{4,}", core)]
    if avoid is not None:
        spans2 = [s for s in spans if not (s[0] <= avoid < s[1])]
        if spans2 and rng.random() < 0.7:
            spans = spans2
    if not spans:
        return None
    weights = [b - a for a, b in spans]
    a, b = rng.choices(spans, weights=weights)[0]
    w = core[a:b]
    n = len(w)
    for _ in range(20):
        kind = rng.choices(["del", "ins", "sub", "swap"], weights=[3, 2, 3, 3])[0]
        p = rng.randrange(1, n) if (rng.random() < 0.93 or n < 5) else 0
        if avoid is not None and abs(a + p - avoid) < 2:
            continue
        lw = w.lower()
        if kind == "del":
            if n < 5:
                continue
            nw = w[:p] + w[p + 1:]
            if p == 0:
                nw = _same_case(w[0], nw[0].lower()) + nw[1:]
        elif kind == "ins":
            ref = w[p - 1] if p > 0 else w[0]
            if not ref.isascii():
                continue
            if rng.random() < 0.5:
                ch = ref.lower()
            else:
                ch = rng.choice(NEIGHBOURS.get(ref.lower(), ["e"]))
            nw = w[:p] + (ch if p > 0 else _same_case(w[0], ch)) + \
                (w[p:] if p > 0 else w[0].lower() + w[1:])
        elif kind == "sub":
            c = lw[p]
            if c not in NEIGHBOURS:
                continue
            if c in VOWEL_SET and rng.random() < 0.45:
                ch = rng.choice([v for v in "aeiou" if v != c])
            else:
                ch = rng.choice(NEIGHBOURS[c])
            nw = w[:p] + _same_case(w[p], ch) + w[p + 1:]
        else:
            if p >= n - 1 or lw[p] == lw[p + 1]:
                continue
            x, y = w[p], w[p + 1]
            if p == 0:
                x, y = _same_case(w[0], y.lower()), x.lower()
            nw = w[:p] + y + x + w[p + 2:]
        if nw.lower() == lw or letter_count(nw) < 3:
            continue
        return core[:a] + nw + core[b:], a + p
    return None


def op_typo(rng, st, e, n_edits):
    core = st["core"]
    letters = letter_count(core)
    longest = max((len(m.group()) for m in re.finditer(r"[^\W\d_]+", core)),
                  default=0)
    if n_edits == 1 and (letters < 4 or longest < 4):
        return None
    if n_edits == 2 and (letters < 9 or longest < 5):
        return None
    r = one_edit(rng, core)
    if r is None:
        return None
    new, pos = r
    if n_edits == 2:
        r2 = one_edit(rng, new, avoid=pos)
        if r2 is None:
            return None
        new = r2[0]
    if new.lower() == core.lower():
        return None
    st = dict(st)
    st["core"] = new
    return st


def op_abbrev(rng, st, e):
    if not e.get("abbr_form"):
        return None
    st = dict(st)
    st["core"] = e["abbr_form"]
    st["article"] = ""
    st["legal"] = ""
    st["sep"] = " "
    st["pos"] = "suffix"
    return st


def apply_qualifier(rng, s, e):
    c = e["country"]
    if rng.random() < 0.8:
        q = rng.choice(COUNTRY_NAMES[c])
    else:
        q = rng.choice(REGIONS.get(c, EUROPE))
    fmt = rng.choices(["{} ({})", "{}, {}", "{} - {}", "{} – {}", "{} [{}]"],
                      weights=[55, 20, 15, 5, 5])[0]
    return fmt.format(s, q)


def title_word(w):
    for i, c in enumerate(w):
        if c.isalpha():
            return w[:i] + c.upper() + w[i + 1:].lower()
    return w


def apply_case(rng, s):
    for _ in range(10):
        mode = rng.choices(["upper", "lower", "title", "sentence", "flip",
                            "inner"], weights=[25, 30, 15, 10, 15, 5])[0]
        if mode == "upper":
            new = s.upper()
        elif mode == "lower":
            new = s.lower()
        elif mode == "title":
            new = " ".join(title_word(w) for w in s.split(" "))
        elif mode == "sentence":
            new = s[:1].upper() + s[1:].lower()
        elif mode == "flip":
            idx = [m.start() for m in re.finditer(r"(?<![^\W\d_])[^\W\d_]{2,}", s)]
            if not idx:
                continue
            i = rng.choice(idx)
            c = s[i]
            new = s[:i] + (c.lower() if c.isupper() else c.upper()) + s[i + 1:]
        else:
            idx = [m.start() for m in re.finditer(r"(?<=[^\W\d_])[^\W\d_](?=[^\W\d_])", s)]
            if not idx:
                continue
            new = s
            for i in rng.sample(idx, min(len(idx), rng.choice([1, 1, 2]))):
                c = new[i]
                new = new[:i] + (c.lower() if c.isupper() else c.upper()) + new[i + 1:]
        if new != s:
            return new
    return None


# ---------------------------------------------------------------------------
# Class choice
# ---------------------------------------------------------------------------
def class_weights(e):
    st = e
    core = st["core"]
    w = {
        "case": 14.0,
        "accent": 14.0 if has_accent(e["canonical"]) else (5.0 if e["kind"] == "invented" else 2.0),
        "legal": 20.0,
        "qualifier": 10.0,
        "article": 6.0 if not e["article"] else 14.0,
        "spacing": 12.0,
        "typo1": 18.0,
        "typo2": 8.0,
    }
    if letter_count(core) < 4:
        w["typo1"] = 0.0
    if letter_count(core) < 9:
        w["typo2"] = 0.0
    if not e["legal"] and letter_count(core) >= 4:
        pass
    return w


COMPATIBLE_WITH_ABBR = {"case", "legal", "qualifier"}


def make_variant(rng, e, classes):
    st = {k: e[k] for k in ("article", "core", "legal", "sep", "pos")}
    applied = []
    for cl in sorted(classes, key=CLASS_ORDER.index):
        if cl in ("qualifier", "case"):
            continue
        if cl == "abbreviation":
            new = op_abbrev(rng, st, e)
        elif cl == "article":
            new = op_article(rng, st, e)
        elif cl == "legal":
            new = op_legal(rng, st, e)
            # "The X Company" without its legal form loses the article as well
            if new and not new["legal"] and new["article"] == "The" and \
                    st["legal"] in ("Company", "Corporation") and "article" not in classes:
                new = dict(new)
                new["article"] = ""
                applied.append("article")
        elif cl == "spacing":
            new = op_spacing(rng, st, e)
        elif cl == "accent":
            new = op_accent(rng, st, e)
        elif cl == "typo1":
            new = op_typo(rng, st, e, 1)
        elif cl == "typo2":
            new = op_typo(rng, st, e, 2)
        else:
            raise ValueError(cl)
        if new is None or render(new) == render(st):
            return None
        st = new
        applied.append(cl)
    s = render(st)
    if "qualifier" in classes:
        s = apply_qualifier(rng, s, e)
        applied.append("qualifier")
    if "case" in classes:
        s2 = apply_case(rng, s)
        if s2 is None:
            return None
        s = s2
        applied.append("case")
    s = re.sub(r"\s+", " ", s).strip()
    label = "+".join(sorted(set(applied), key=CLASS_ORDER.index))
    return s, label


def choose_classes(rng, weights, combo):
    names = [k for k in weights if weights[k] > 0]
    ws = [weights[k] for k in names]
    first = rng.choices(names, weights=ws)[0]
    if not combo:
        return [first]
    rest = [k for k in names if k != first and
            not (first.startswith("typo") and k.startswith("typo"))]
    if not rest:
        return [first]
    second = rng.choices(rest, weights=[weights[k] for k in rest])[0]
    return [first, second]


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------
def build_entities(rng):
    reg = Registry()
    # real names
    real_family_of = {}
    for fi, fam in enumerate(REAL_FAMILIES):
        for name in fam:
            real_family_of[name] = "real%d" % fi
    for line in REAL.strip().splitlines():
        e = parse_real(line)
        e["family"] = real_family_of.get(e["canonical"])
        if not reg.fits(e, allow_core_dup=True):
            raise SystemExit("duplicate real name: " + e["canonical"])
        reg.add(e)
    missing = [n for n in real_family_of if strict_key(n) not in reg.canon_keys]
    if missing:
        raise SystemExit("family names not in list: %r" % missing)

    # families of near spellings: "Alder", "Alden", "Alderson"
    fam_no = 0
    n_letter_fams = 72
    made = 0
    while made < n_letter_fams:
        stem = make_stem(rng, max_syl=2, min_len=4, max_len=7)
        muts = family_mutations(rng, stem)
        k = rng.choices([2, 3, 4], weights=[40, 40, 20])[0]
        members = [stem] + muts[: k - 1]
        if len(members) < 2:
            continue
        country = rng.choice(INVENTED_COUNTRIES)
        deco = rng.random()
        gen = rng.choice(GENERICS)
        fid = "near%d" % fam_no
        ents = []
        for m in members:
            if deco < 0.55:
                core = m
            elif deco < 0.9:
                core = m + " " + gen
            else:
                core = m + " " + rng.choice(GENERICS)
            ents.append(new_invented(rng, core, country, "family_near", fid,
                                     legal_p=0.12))
        keys = [strict_key(x["canonical"]) for x in ents] + \
            [strict_key(x["core"]) for x in ents]
        if len(set(keys)) != len(keys) // 2 * 2 or \
                len(set(strict_key(x["core"]) for x in ents)) != len(ents):
            continue
        if not all(reg.fits(x) for x in ents):
            continue
        for x in ents:
            reg.add(x)
        fam_no += 1
        made += 1

    # families sharing the first word: "Nova Bank", "Nova Foods"
    n_word_fams = 64
    made = 0
    while made < n_word_fams:
        head = rng.choice(FAMILY_WORDS) if rng.random() < 0.35 else make_stem(rng)
        if strict_key(head) in reg.first_words or strict_key(head) in reg.single_cores:
            continue
        k = rng.choices([2, 3, 4], weights=[45, 40, 15])[0]
        gens = rng.sample(GENERICS, k)
        country = rng.choice(INVENTED_COUNTRIES)
        fid = "word%d" % fam_no
        ents = [new_invented(rng, head + " " + g, country, "family_word", fid,
                             legal_p=0.12) for g in gens]
        if not all(reg.fits(x) for x in ents):
            continue
        for x in ents:
            reg.add(x)
        fam_no += 1
        made += 1

    # the other invented names
    while len(reg.entities) < N_ENTITIES:
        country = rng.choice(INVENTED_COUNTRIES)
        core, pattern, splits = invented_core(rng, country)
        if rng.random() < 0.06 and pattern in ("single", "stem_gen", "stem_gen2"):
            ws = core.split(" ")
            acc = accentuate(rng, ws[0])
            if acc:
                core = " ".join([acc] + ws[1:])
        art_p = 0.08 if pattern in ("adj_noun", "adj_noun_gen", "surnames") else 0.0
        e = new_invented(rng, core, country, pattern, None, splits,
                         legal_p=0.18, article_p=art_p)
        if reg.fits(e):
            reg.add(e)
    return reg


def significant_words(core):
    return [w for w in re.split(r"[ ]+", core)
            if w and w.lower() not in ("and", "&", "of", "the")]


def plan_abbreviations(rng, reg):
    ents = reg.entities
    # initials of every multi-word entity, to keep initials unambiguous
    def initials(core):
        if "&" in core and len(words_of(core)) == 3:
            a, _, b = words_of(core)
            return a[0].upper() + "&" + b[0].upper()
        return "".join(w[0].upper() for w in significant_words(core) if w[0].isalpha())
    init_count = Counter()
    for e in ents:
        if len(words_of(e["core"])) > 1:
            init_count[strict_key(initials(e["core"]))] += 1
    word_prefixes = Counter()
    for e in ents:
        ws = [strict_key(w) for w in words_of(e["core"])]
        for i in range(1, len(ws)):
            word_prefixes[" ".join(ws[:i])] += 1
    all_keys = Counter()
    for e in ents:
        all_keys[strict_key(e["core"])] += 1
        all_keys[strict_key(e["canonical"])] += 1

    multi = [e for e in ents if len(words_of(e["core"])) > 1 or
             (e["kind"] == "real" and e["abbrs"])]
    n_multi = len(multi)
    for e in ents:
        e["abbr_form"] = None
    chosen = 0
    for e in multi:
        if e["kind"] == "real":
            if e["abbrs"] and rng.random() < 0.85:
                e["abbr_form"] = rng.choice(e["abbrs"])
                chosen += 1
            continue
    target = round(0.10 * n_multi)
    pool = [e for e in multi if e["kind"] == "invented"]
    rng.shuffle(pool)
    for e in pool:
        if chosen >= target:
            break
        ws = words_of(e["core"])
        cands = []
        sig = significant_words(e["core"])
        if e["pattern"] in ("stem_gen", "stem_gen2", "family_word", "family_near", "of"):
            if e["pattern"] != "of":
                cands.append(" ".join(ws[:1]))
        if e["pattern"] in ("adj_noun_gen",):
            cands.append(" ".join(ws[:2]))
        if e["pattern"] == "stem_gen2":
            cands.append(" ".join(ws[:2]))
        if len(sig) >= 3 or e["pattern"] in ("surnames",):
            cands.append(initials(e["core"]))
        ok = []
        for c in cands:
            ck = strict_key(c)
            if len(ck) < 2:
                continue
            nwords = len(words_of(c))
            if " " in c or c in ws:
                # leading words: must not lead another entity's name
                pref = " ".join(strict_key(w) for w in words_of(c))
                if word_prefixes[pref] > 1 or all_keys[ck] > 0:
                    continue
                if nwords == 1 and len(ck) < 5:
                    continue
            else:
                if init_count[ck] > 1 or all_keys[ck] > 0:
                    continue
            ok.append(c)
        if ok:
            e["abbr_form"] = rng.choice(ok)
            chosen += 1
    return n_multi, chosen


def main():
    rng = random.Random(SEED)
    reg = build_entities(rng)
    ents = reg.entities
    n_multi, n_abbr = plan_abbreviations(rng, reg)
    core_n = Counter(strict_key(e["core"]) for e in ents)
    for e in ents:
        e["core_shared"] = core_n[strict_key(e["core"])] > 1

    candidates = []   # (entity id, surface, class)
    for e in ents:
        base = e["canonical"]
        seen = {base}
        candidates.append((e["id"], base, "base"))
        n_var = rng.choices(range(2, 10), weights=[16, 17, 16, 14, 12, 10, 8, 7])[0]
        weights = class_weights(e)
        produced = 0
        if e["abbr_form"]:
            for _ in range(10):
                cls = ["abbreviation"]
                if rng.random() < 0.25:
                    cls.append(rng.choice(sorted(COMPATIBLE_WITH_ABBR)))
                r = make_variant(rng, e, cls)
                if r and r[0] not in seen:
                    seen.add(r[0])
                    candidates.append((e["id"], r[0], r[1]))
                    produced += 1
                    break
        tries = 0
        while produced < n_var and tries < n_var * 12:
            tries += 1
            cls = choose_classes(rng, weights, rng.random() < 0.25)
            r = make_variant(rng, e, cls)
            if r is None:
                continue
            s, label = r
            if s in seen or not s:
                continue
            seen.add(s)
            candidates.append((e["id"], s, label))
            produced += 1

    # keys of every form, including forms derived from the canonical name
    key_owner = {}
    def claim(k, eid):
        key_owner.setdefault(k, [])
        if eid not in key_owner[k]:
            key_owner[k].append(eid)
    for e in ents:
        shadow = [e["canonical"], e["core"],
                  render(dict(e, article="")), render(dict(e, legal=""))]
        for s in shadow:
            claim(strict_key(s), e["id"])
    for eid, s, _ in candidates:
        claim(strict_key(s), eid)

    rows = []
    used = set()
    dropped = Counter()
    for eid, s, cls in candidates:
        if cls != "base" and len(key_owner[strict_key(s)]) > 1:
            dropped[cls] += 1
            continue
        if s in used:
            dropped[cls] += 1
            continue
        used.add(s)
        rows.append((s, ents[eid]["canonical"], cls))
    rng.shuffle(rows)

    # final checks
    key_ent = {}
    for s, ent, cls in rows:
        k = strict_key(s)
        if cls != "base":
            assert key_ent.setdefault(k, ent) == ent or False, (s, ent)
    assert len(set(r[0] for r in rows)) == len(rows)
    loose = {}
    for s, ent, cls in rows:
        k = " ".join(re.sub(r"[^\w\s]", "", s.lower()).split())
        loose.setdefault(k, set()).add(ent)
    n_loose_amb = sum(1 for v in loose.values() if len(v) > 1)

    with open(OUT_PATH, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["surface", "entity", "class"])
        w.writerows(rows)

    # statistics
    cls_count = Counter(r[2] for r in rows)
    fam_ents = sum(1 for e in ents if e["family"])
    print("wrote %s" % OUT_PATH)
    print("rows %d  entities %d  family members %d (%.1f %%)" % (
        len(rows), len(set(r[1] for r in rows)), fam_ents,
        100.0 * fam_ents / len(ents)))
    print("abbreviation planned for %d of %d multi-word names" % (n_abbr, n_multi))
    print("loose-key groups with >1 entity (bases only expected): %d" % n_loose_amb)
    single = Counter()
    for c, n in cls_count.items():
        if "+" in c:
            single["<two classes>"] += n
        else:
            single[c] += n
    for c, n in sorted(single.items(), key=lambda x: -x[1]):
        print("  %-16s %6d" % (c, n))
    print("dropped as ambiguous: %d" % sum(dropped.values()))


if __name__ == "__main__":
    main()
