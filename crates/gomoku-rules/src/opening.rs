//! The 26 standard Renju openings (26 种开局) for designated-opening games (指定打法: the
//! players start from an agreed opening and white plays move 4).
//!
//! An opening is given by its first three stones: black on h8, white on a neighbour of h8,
//! black within the central 5×5 square. Up to the 8 symmetries of the board there are two
//! kinds of white stone, orthogonal to h8 (a *direct* opening, 直指) or diagonal to it (an
//! *indirect* opening, 斜指), and 13 places for black's second stone with each, so exactly
//! 26 openings. They are listed here in the RIF order (1D–13D, then 1I–13I) with white on
//! h9 (direct) or i9 (indirect), as in the RIF diagrams; `tests/openings.rs` checks every
//! position against the published diagrams.
//!
//! The crate stays pure: it lists the openings and maps a caller's random number to one
//! ([`Opening::pick`]); drawing that number is the caller's business.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::point::{Point, Symmetry};
use crate::rule_set::{ForbiddenPolicy, RuleSet};

/// Whether white's stone is orthogonal or diagonal to h8.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpeningFamily {
    /// White orthogonal to h8 (直指开局); written with white on h9.
    Direct,
    /// White diagonal to h8 (斜指开局); written with white on i9.
    Indirect,
}

impl OpeningFamily {
    /// `direct` or `indirect`.
    pub fn name(self) -> &'static str {
        match self {
            OpeningFamily::Direct => "direct",
            OpeningFamily::Indirect => "indirect",
        }
    }

    /// White's stone as the diagrams place it: h9 or i9.
    pub const fn white_stone(self) -> Point {
        match self {
            OpeningFamily::Direct => point(7, 8),
            OpeningFamily::Indirect => point(8, 8),
        }
    }
}

/// One of the 26 standard Renju openings, in RIF order: the 13 direct ones (1D–13D, numbers
/// 1–13), then the 13 indirect ones (1I–13I, numbers 14–26).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Opening {
    /// 寒星, 1D: h8 h9 h10.
    Kansei,
    /// 溪月, 2D: h8 h9 i10.
    Keigetsu,
    /// 疏星, 3D: h8 h9 j10.
    Sosei,
    /// 花月, 4D: h8 h9 i9.
    Kagetsu,
    /// 残月, 5D: h8 h9 j9.
    Zangetsu,
    /// 雨月, 6D: h8 h9 i8.
    Ugetsu,
    /// 金星, 7D: h8 h9 j8.
    Kinsei,
    /// 松月, 8D: h8 h9 h7.
    Shogetsu,
    /// 丘月, 9D: h8 h9 i7.
    Kyugetsu,
    /// 新月, 10D: h8 h9 j7.
    Shingetsu,
    /// 瑞星, 11D: h8 h9 h6.
    Zuisei,
    /// 山月, 12D: h8 h9 i6.
    Sangetsu,
    /// 游星, 13D: h8 h9 j6.
    Yusei,
    /// 长星, 1I: h8 i9 j10.
    Chosei,
    /// 峡月, 2I: h8 i9 j9.
    Kyogetsu,
    /// 恒星, 3I: h8 i9 j8.
    Kosei,
    /// 水月, 4I: h8 i9 j7.
    Suigetsu,
    /// 流星, 5I: h8 i9 j6.
    Ryusei,
    /// 云月, 6I: h8 i9 i8.
    Ungetsu,
    /// 浦月, 7I: h8 i9 i7.
    Hogetsu,
    /// 岚月, 8I: h8 i9 i6.
    Rangetsu,
    /// 银月, 9I: h8 i9 h7.
    Gingetsu,
    /// 明星, 10I: h8 i9 h6.
    Myojo,
    /// 斜月, 11I: h8 i9 g7.
    Shagetsu,
    /// 名月, 12I: h8 i9 g6.
    Meigetsu,
    /// 彗星, 13I: h8 i9 f6.
    Suisei,
}

/// What the crate knows of one opening; indexed by `number - 1`.
struct Entry {
    id: &'static str,
    name: &'static str,
    name_zh: &'static str,
    code: &'static str,
    /// Black's second stone (move 3).
    third: Point,
}

const fn point(x: u8, y: u8) -> Point {
    match Point::new(x, y) {
        Some(p) => p,
        None => panic!("an opening stone lies off the board"),
    }
}

/// Columns and rows from 0: h = 7, row 8 = 7.
static TABLE: [Entry; 26] = [
    entry("kansei", "Kansei", "寒星", "1D", 7, 9),
    entry("keigetsu", "Keigetsu", "溪月", "2D", 8, 9),
    entry("sosei", "Sosei", "疏星", "3D", 9, 9),
    entry("kagetsu", "Kagetsu", "花月", "4D", 8, 8),
    entry("zangetsu", "Zangetsu", "残月", "5D", 9, 8),
    entry("ugetsu", "Ugetsu", "雨月", "6D", 8, 7),
    entry("kinsei", "Kinsei", "金星", "7D", 9, 7),
    entry("shogetsu", "Shogetsu", "松月", "8D", 7, 6),
    entry("kyugetsu", "Kyugetsu", "丘月", "9D", 8, 6),
    entry("shingetsu", "Shingetsu", "新月", "10D", 9, 6),
    entry("zuisei", "Zuisei", "瑞星", "11D", 7, 5),
    entry("sangetsu", "Sangetsu", "山月", "12D", 8, 5),
    entry("yusei", "Yusei", "游星", "13D", 9, 5),
    entry("chosei", "Chosei", "长星", "1I", 9, 9),
    entry("kyogetsu", "Kyogetsu", "峡月", "2I", 9, 8),
    entry("kosei", "Kosei", "恒星", "3I", 9, 7),
    entry("suigetsu", "Suigetsu", "水月", "4I", 9, 6),
    entry("ryusei", "Ryusei", "流星", "5I", 9, 5),
    entry("ungetsu", "Ungetsu", "云月", "6I", 8, 7),
    entry("hogetsu", "Hogetsu", "浦月", "7I", 8, 6),
    entry("rangetsu", "Rangetsu", "岚月", "8I", 8, 5),
    entry("gingetsu", "Gingetsu", "银月", "9I", 7, 6),
    entry("myojo", "Myojo", "明星", "10I", 7, 5),
    entry("shagetsu", "Shagetsu", "斜月", "11I", 6, 6),
    entry("meigetsu", "Meigetsu", "名月", "12I", 6, 5),
    entry("suisei", "Suisei", "彗星", "13I", 5, 5),
];

const fn entry(
    id: &'static str,
    name: &'static str,
    name_zh: &'static str,
    code: &'static str,
    x: u8,
    y: u8,
) -> Entry {
    Entry {
        id,
        name,
        name_zh,
        code,
        third: point(x, y),
    }
}

/// Why a text did not name an opening. Quotes at most a short excerpt of the text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpeningError {
    #[error(
        "unknown opening {0:?}: name one by its id (kansei … suisei), its number 1-26, its RIF code (1D … 13I) or its Chinese name (寒星 … 彗星)"
    )]
    Unknown(String),
}

/// At most this many characters of a caller's text go into an error message.
const EXCERPT_CHARS: usize = 24;

impl Opening {
    /// All 26, in RIF order (number 1 first).
    pub const ALL: [Opening; 26] = [
        Opening::Kansei,
        Opening::Keigetsu,
        Opening::Sosei,
        Opening::Kagetsu,
        Opening::Zangetsu,
        Opening::Ugetsu,
        Opening::Kinsei,
        Opening::Shogetsu,
        Opening::Kyugetsu,
        Opening::Shingetsu,
        Opening::Zuisei,
        Opening::Sangetsu,
        Opening::Yusei,
        Opening::Chosei,
        Opening::Kyogetsu,
        Opening::Kosei,
        Opening::Suigetsu,
        Opening::Ryusei,
        Opening::Ungetsu,
        Opening::Hogetsu,
        Opening::Rangetsu,
        Opening::Gingetsu,
        Opening::Myojo,
        Opening::Shagetsu,
        Opening::Meigetsu,
        Opening::Suisei,
    ];

    /// The rules a designated-opening game is played under: renju, and a forbidden move
    /// loses (the `gomoku-renju-opening` room). [`crate::Game::with_opening`] also accepts
    /// the other renju policies.
    pub const RULE_SET: RuleSet = RuleSet::Renju(ForbiddenPolicy::Lose);

    fn entry(self) -> &'static Entry {
        &TABLE[self as usize]
    }

    /// 1–26 in RIF order: 1–13 are 1D–13D, 14–26 are 1I–13I. Stable.
    pub const fn number(self) -> u8 {
        self as u8 + 1
    }

    /// The opening with [`Opening::number`] `number`.
    pub const fn from_number(number: u8) -> Option<Opening> {
        match number {
            1..=26 => Some(Opening::ALL[number as usize - 1]),
            _ => None,
        }
    }

    /// The stable id used in records, stored games and APIs: the romanised Japanese name in
    /// lower case, e.g. `kansei`, `hogetsu`, `myojo`.
    pub fn id(self) -> &'static str {
        self.entry().id
    }

    /// The name used by the RIF (romanised Japanese), e.g. `Kansei`.
    pub fn name(self) -> &'static str {
        self.entry().name
    }

    /// The Chinese name, e.g. `寒星` (寒星局).
    pub fn name_zh(self) -> &'static str {
        self.entry().name_zh
    }

    /// The RIF diagram code: `1D` … `13D`, `1I` … `13I`.
    pub fn code(self) -> &'static str {
        self.entry().code
    }

    /// Direct (numbers 1–13) or indirect (14–26).
    pub const fn family(self) -> OpeningFamily {
        if (self as u8) < 13 {
            OpeningFamily::Direct
        } else {
            OpeningFamily::Indirect
        }
    }

    /// Moves 1–3 as the RIF diagrams place them: h8, white on h9 or i9, black's second stone.
    pub fn stones(self) -> [Point; 3] {
        [
            Point::CENTER,
            self.family().white_stone(),
            self.entry().third,
        ]
    }

    /// Maps any number (from the caller's random source) to an opening, each equally often
    /// over any 26 consecutive numbers. The same number always gives the same opening.
    pub const fn pick(random: u64) -> Opening {
        Opening::ALL[(random % 26) as usize]
    }

    /// Reads an opening from its id (any case), number (`1`–`26`), RIF code (`1D`, `13I`)
    /// or Chinese name (with or without 局).
    pub fn parse(text: &str) -> Result<Opening, OpeningError> {
        let text = text.trim();
        let found = Opening::ALL.into_iter().find(|o| {
            o.id().eq_ignore_ascii_case(text)
                || o.code().eq_ignore_ascii_case(text)
                || text.strip_suffix('局').unwrap_or(text) == o.name_zh()
        });
        if let Some(opening) = found {
            return Ok(opening);
        }
        if let Some(opening) = text.parse::<u8>().ok().and_then(Opening::from_number) {
            return Ok(opening);
        }
        Err(OpeningError::Unknown(
            text.chars().take(EXCERPT_CHARS).collect(),
        ))
    }

    /// The opening that moves 1–3 form (in order: black, white, black), seen through any
    /// symmetry of the board; `None` when they are no standard opening (h8 not first,
    /// white not touching h8, or black's second stone outside the central 5×5).
    pub fn identify(stones: [Point; 3]) -> Option<Opening> {
        Opening::ALL.into_iter().find(|opening| {
            let own = opening.stones();
            Symmetry::ALL
                .iter()
                .any(|&s| own.iter().zip(&stones).all(|(a, &b)| a.transform(s) == b))
        })
    }
}

impl fmt::Display for Opening {
    /// The id, e.g. `kansei`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl std::str::FromStr for Opening {
    type Err = OpeningError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Opening::parse(text)
    }
}

impl TryFrom<String> for Opening {
    type Error = OpeningError;
    fn try_from(text: String) -> Result<Self, Self::Error> {
        Opening::parse(&text)
    }
}

impl From<Opening> for String {
    fn from(opening: Opening) -> String {
        opening.id().to_owned()
    }
}

/// How the games of a designated-opening table (指定打法) choose their opening: drawn per
/// game from the 26 ([`OpeningChoice::Random`]), or always the same one. Written `random`
/// or as any name [`Opening::parse`] reads; [`OpeningChoice::name`] gives `random` or the
/// opening's id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum OpeningChoice {
    /// Each game from one of the 26, each equally likely.
    Random,
    /// Every game from this one.
    Fixed(Opening),
}

impl OpeningChoice {
    /// `random`, or the opening's id.
    pub fn name(self) -> &'static str {
        match self {
            OpeningChoice::Random => "random",
            OpeningChoice::Fixed(opening) => opening.id(),
        }
    }

    /// Reads `random` (any case) or an opening ([`Opening::parse`]).
    pub fn parse(text: &str) -> Result<OpeningChoice, OpeningError> {
        if text.trim().eq_ignore_ascii_case("random") {
            return Ok(OpeningChoice::Random);
        }
        Opening::parse(text).map(OpeningChoice::Fixed)
    }

    /// The opening of one game: the fixed one, or [`Opening::pick`] of `random` (a number
    /// the caller drew for this game).
    pub const fn opening(self, random: u64) -> Opening {
        match self {
            OpeningChoice::Random => Opening::pick(random),
            OpeningChoice::Fixed(opening) => opening,
        }
    }
}

impl fmt::Display for OpeningChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl TryFrom<String> for OpeningChoice {
    type Error = OpeningError;
    fn try_from(text: String) -> Result<Self, Self::Error> {
        OpeningChoice::parse(&text)
    }
}

impl From<OpeningChoice> for String {
    fn from(choice: OpeningChoice) -> String {
        choice.name().to_owned()
    }
}
