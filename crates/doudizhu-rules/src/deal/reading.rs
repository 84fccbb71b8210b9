//! What a play in a deal reads as, in every rule set: the cards' one combination in
//! `classic` and `rob`; in `laizi` the one reading the cards allow, or the one the player
//! states (`meant`), with wild cards (癞子) standing in.

use crate::card::Rank;
use crate::combination::{Kind, classify};
use crate::ranks::RankCounts;
use crate::wild::{self, BombClass, Reading, ReadingError, WildPlay};

use super::ActionError;

/// Reads a play of `cards` (ranks, wild cards under their own rank): its reading and, in
/// `laizi` (`wild` is the wild rank), what the cards stand for.
///
/// - No wild rank (`classic`, `rob`): `meant` must be `None` or the cards themselves
///   (else [`ActionError::ReadingNotPossible`]).
/// - Wild rank, `meant` stated: used as stated if the cards can stand for it
///   ([`ActionError::ReadingNotPossible`] if not, [`ActionError::InvalidCombination`]
///   if it is no combination).
/// - Wild rank, nothing stated: the one reading the cards allow, with its representative
///   `meant`; [`ActionError::AmbiguousReading`] if they allow more than one.
pub(super) fn read_play(
    cards: &RankCounts,
    wild: Option<Rank>,
    meant: Option<&RankCounts>,
) -> Result<(Reading, Option<RankCounts>), ActionError> {
    let Some(wild) = wild else {
        if meant.is_some_and(|m| m != cards) {
            return Err(ActionError::ReadingNotPossible);
        }
        let combination = classify(cards).ok_or(ActionError::InvalidCombination)?;
        return Ok((Reading::classic(combination), None));
    };
    if let Some(meant) = meant {
        let reading = wild::read_as(cards, wild, meant).map_err(|e| match e {
            ReadingError::NotReachable => ActionError::ReadingNotPossible,
            ReadingError::NotACombination => ActionError::InvalidCombination,
        })?;
        return Ok((reading, Some(*meant)));
    }
    let mut readings = wild::readings(cards, wild);
    match readings.len() {
        0 => Err(ActionError::InvalidCombination),
        1 => {
            let only = readings.remove(0);
            Ok((only.reading, Some(only.meant)))
        }
        _ => Err(ActionError::AmbiguousReading { readings }),
    }
}

/// A reading in words, for messages: `soft bomb of 5s`, `triple 5s with a single`,
/// `straight 3 to 7`, `airplane 3 to 4 with pairs`, `rocket`.
pub fn reading_text(reading: &Reading) -> String {
    let c = reading.combination;
    let rank = c.rank;
    let top =
        Rank::from_index(rank.index() + usize::from(c.length).saturating_sub(1)).unwrap_or(rank);
    match c.kind {
        Kind::Single => format!("single {rank}"),
        Kind::Pair => format!("pair of {rank}s"),
        Kind::Triple => format!("triple {rank}s"),
        Kind::TripleWithSingle => format!("triple {rank}s with a single"),
        Kind::TripleWithPair => format!("triple {rank}s with a pair"),
        Kind::Straight => format!("straight {rank} to {top}"),
        Kind::PairStraight => format!("pairs {rank} to {top}"),
        Kind::TripleStraight => format!("triples {rank} to {top}"),
        Kind::AirplaneWithSingles => format!("airplane {rank} to {top} with singles"),
        Kind::AirplaneWithPairs => format!("airplane {rank} to {top} with pairs"),
        Kind::FourWithTwoSingles => format!("four {rank}s with two singles"),
        Kind::FourWithTwoPairs => format!("four {rank}s with two pairs"),
        Kind::Bomb => match reading.bomb {
            None => format!("bomb of {rank}s"),
            Some(BombClass::Soft) => format!("soft bomb of {rank}s"),
            Some(BombClass::Hard) => format!("hard bomb of {rank}s"),
            Some(BombClass::Wild) => format!("wild bomb of {rank}s"),
        },
        Kind::Rocket => "rocket".to_owned(),
    }
}

/// Several readings in words: `soft bomb of 5s or triple 5s with a single`.
pub(super) fn readings_text(readings: &[WildPlay]) -> String {
    let texts: Vec<String> = readings.iter().map(|p| reading_text(&p.reading)).collect();
    texts.join(" or ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranks(text: &str) -> RankCounts {
        RankCounts::parse(text).expect("rank text")
    }

    #[test]
    fn without_wilds_a_play_is_its_cards() {
        let (reading, meant) = read_play(&ranks("3 3 3 4"), None, None).expect("reads");
        assert_eq!(reading_text(&reading), "triple 3s with a single");
        assert_eq!(meant, None);
        assert_eq!(
            read_play(&ranks("3 3 3 4"), None, Some(&ranks("3 3 3 4"))).map(|r| r.0),
            Ok(reading)
        );
        assert_eq!(
            read_play(&ranks("3 3 3 4"), None, Some(&ranks("3 3 3 5"))),
            Err(ActionError::ReadingNotPossible)
        );
    }

    #[test]
    fn a_play_that_reads_two_ways_is_refused_naming_both() {
        // Wild 5: 5 5 5 + 6 is a soft bomb of 6s or triple 5s with a single... and the
        // error names every reading the cards allow.
        let error = read_play(&ranks("5 5 5 6"), Some(Rank::Five), None).expect_err("ambiguous");
        assert_eq!(error.code(), "ambiguous_reading");
        let text = error.to_string();
        assert!(text.contains("soft bomb of 6s"), "{text}");
        assert!(text.contains("triple 5s with a single"), "{text}");
        assert!(text.contains(" or "), "{text}");
    }

    #[test]
    fn readings_have_words() {
        let straight = classify(&ranks("3 4 5 6 7")).expect("straight");
        assert_eq!(reading_text(&Reading::classic(straight)), "straight 3 to 7");
        let airplane = classify(&ranks("333444 55 66")).expect("airplane");
        assert_eq!(
            reading_text(&Reading::classic(airplane)),
            "airplane 3 to 4 with pairs"
        );
        let rocket = classify(&ranks("X D")).expect("rocket");
        assert_eq!(reading_text(&Reading::classic(rocket)), "rocket");
    }
}
