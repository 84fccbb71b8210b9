//! Settling a finished game: the report as a game service sends it, the checks that it
//! makes a game of its type, and the plan of everything the settlement changes.
//!
//! The ledger does not recompute points (the rule crates do); it checks that the seats,
//! outcomes and point signs are consistent, turns points into silver within the caps,
//! and updates points, titles, counts and ratings.

use serde::Serialize;
use sha2::{Digest, Sha256};

use super::caps::{self, Caps, Limit, Stake};
use super::rating::{self, RatedOutcome, RatedPlayer};
use super::titles::{Title, title_for};
use super::{Counts, GameType, HistoryKind, Outcome, PlayerId, Role};
use crate::error::LedgerError;
use gamehub_terms::games::Game;

/// The most points one player may score or lose in one game (after the points base).
pub const MAX_POINTS_PER_GAME: i64 = 1_000_000_000_000;
/// The largest record kept (256 KiB).
pub const MAX_RECORD_BYTES: usize = 256 * 1024;

/// The money side of a room, checked as every service checks it.
pub use gamehub_terms::Stakes;

/// One player's part, as reported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Seat {
    /// The player.
    pub player_id: PlayerId,
    /// Its seat.
    pub role: Role,
    /// What the game meant for it.
    pub outcome: Outcome,
    /// Its points, already multiplied by the points base.
    pub points: i64,
    /// Gomoku draw by agreement: this player offered it.
    pub offered_draw: bool,
}

/// A finished game as a game service reports it, every field checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GameReport {
    /// The idempotency key.
    pub game_id: String,
    /// The game type.
    pub game_type: GameType,
    /// The room's stakes.
    pub stakes: Stakes,
    /// One per seat, in the order of the request.
    pub seats: Vec<Seat>,
    /// How it ended, in the rules' words.
    pub reason: String,
    /// Where it was played.
    pub table_id: String,
    /// Unix ms.
    pub started_at_unix_ms: i64,
    /// Unix ms.
    pub ended_at_unix_ms: i64,
    /// The record's format.
    pub record_format: String,
    /// The record.
    pub record_content: String,
    /// Played at a friends' table (好友房): its record says so, and it moves no rating.
    /// Left out of the canonical form when false, so a game reported before the flag
    /// existed hashes as it did then and its retries still replay.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub friends_table: bool,
}

fn seat_field(i: usize, name: &str) -> String {
    format!("players[{i}].{name}")
}

impl GameReport {
    /// Checks that the seats make a game of this type, as the registry describes it:
    /// seat count, roles and lineup, outcomes that make a result, point signs that match
    /// the outcomes, distinct players, and points that do not pay winners more than
    /// losers lose.
    pub fn check(&self) -> Result<(), LedgerError> {
        let game = self.game_type.game();
        let n = self.seats.len();
        if n != game.seats {
            return Err(LedgerError::invalid(
                "players",
                format!(
                    // The proto's name (`Gomoku`): the words API clients have read.
                    "a {:?} game has {} players; got {n}",
                    game.game_type, game.seats
                ),
            ));
        }
        for (i, seat) in self.seats.iter().enumerate() {
            if self.seats[..i]
                .iter()
                .any(|s| s.player_id == seat.player_id)
            {
                return Err(LedgerError::invalid(
                    seat_field(i, "player_id"),
                    format!("player {} appears twice", seat.player_id),
                ));
            }
            let sign_ok = match seat.outcome {
                Outcome::Win => seat.points >= 0,
                Outcome::Loss | Outcome::Escape => seat.points <= 0,
                Outcome::Draw => true,
                Outcome::Void => seat.points == 0,
            };
            if !sign_ok {
                return Err(LedgerError::invalid(
                    seat_field(i, "points"),
                    format!(
                        "{} points do not fit outcome {:?} (a win scores 0 or more, a loss or escape 0 or less, a voided game 0)",
                        seat.points, seat.outcome
                    ),
                ));
            }
            if seat.offered_draw && seat.outcome != Outcome::Draw {
                return Err(LedgerError::invalid(
                    seat_field(i, "offered_draw"),
                    "only a drawn player can have offered the draw",
                ));
            }
        }
        self.check_result(game)?;
        if self.seats.iter().filter(|s| s.offered_draw).count() > 1 {
            return Err(LedgerError::invalid(
                "players",
                "only one player can have offered the draw",
            ));
        }
        let sum: i64 = self.seats.iter().map(|s| s.points).sum();
        if sum > 0 {
            return Err(LedgerError::invalid(
                "players",
                format!("points sum to +{sum}; winners cannot score more than the losers lose"),
            ));
        }
        Ok(())
    }

    /// Checks that the roles make one of the game's lineups and the outcomes one of its
    /// results: one escape and every other player's outcome the game's outcome after an
    /// escape; every player drawn, where the game has draws; or one side winning and the
    /// other losing. A lineup on no side ends only by an escape.
    fn check_result(&self, game: &Game) -> Result<(), LedgerError> {
        for (i, seat) in self.seats.iter().enumerate() {
            if !game.roles.contains(&seat.role.to_proto()) {
                return Err(LedgerError::invalid(
                    seat_field(i, "role"),
                    format!("a {} player is {}", game.name, game.role_names()),
                ));
            }
        }
        let roles: Vec<_> = self.seats.iter().map(|s| s.role.to_proto()).collect();
        let lineup = game
            .lineup_of(&roles)
            .ok_or_else(|| LedgerError::invalid("players", game.refusals.lineup))?;
        let after_escape = Outcome::from_code(game.after_escape as i16);
        let escapes = self
            .seats
            .iter()
            .filter(|s| s.outcome == Outcome::Escape)
            .count();
        let others_after_escape = self
            .seats
            .iter()
            .all(|s| s.outcome == Outcome::Escape || Some(s.outcome) == after_escape);
        if escapes == 1 && others_after_escape {
            return Ok(());
        }
        if !game.has_sides(lineup) {
            let refusal = game.refusals.sideless_results;
            return Err(LedgerError::invalid(
                "players",
                refusal.unwrap_or(game.refusals.results),
            ));
        }
        if game.draws && self.seats.iter().all(|s| s.outcome == Outcome::Draw) {
            return Ok(());
        }
        let won_by = |side| {
            self.seats.iter().all(|s| {
                let on_side = game.side_of(s.role.to_proto()) == Some(side);
                s.outcome == if on_side { Outcome::Win } else { Outcome::Loss }
            })
        };
        if (0..game.sides.len()).any(won_by) {
            return Ok(());
        }
        let outcomes: Vec<String> = self
            .seats
            .iter()
            .map(|s| format!("{:?}", s.outcome))
            .collect();
        Err(LedgerError::invalid(
            "players",
            game.refusals
                .results
                .replace("{outcomes}", &outcomes.join(" and ")),
        ))
    }

    /// Whether this game moves ratings: a rated room of a game whose rooms may be rated,
    /// at a table the matcher made. A friends' table is never rated, whatever its room
    /// (docs/rules.md#friends-tables): friends could pass rating to each other on purpose.
    pub fn rated(&self) -> bool {
        self.game_type.game().ratable && self.stakes.rated && !self.friends_table
    }

    /// The SHA-256 of the report's canonical form (its JSON with fields in declaration
    /// order): two requests are the same payload when their reports hash alike.
    pub fn sha256(&self) -> [u8; 32] {
        let canonical = serde_json::to_vec(self).unwrap_or_default();
        Sha256::digest(&canonical).into()
    }

    /// The silver the rules ask of or for seat `i`, before any cap.
    pub fn silver_requested(&self, i: usize) -> i64 {
        // |points| ≤ 10^12 and silver per point ≤ 10^6 (checked when parsed).
        self.seats[i]
            .points
            .saturating_mul(self.stakes.silver_per_point)
    }
}

/// What the ledger holds for a player when its game is settled (rows locked).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerSnapshot {
    /// The player.
    pub player_id: PlayerId,
    /// Its balance.
    pub balance_silver: i64,
    /// Silver won today (zero if the stored counters are of an earlier day).
    pub won_today_silver: i64,
    /// Silver lost today, likewise.
    pub lost_today_silver: i64,
    /// Points in the game's type.
    pub points: i64,
    /// Gomoku rating.
    pub gomoku_rating: i64,
    /// Rated Gomoku games played.
    pub rated_games: i64,
    /// Professional dan, 0 if none.
    pub professional_dan: u8,
}

/// What settling does to one seat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatPlan {
    /// Points before.
    pub points_before: i64,
    /// Points after (never clamped).
    pub points_after: i64,
    /// The title before.
    pub title_before: Title,
    /// The title after.
    pub title_after: Title,
    /// Points × silver per point.
    pub silver_requested: i64,
    /// Silver moved: negative paid, positive received.
    pub silver_delta: i64,
    /// Why less moved than requested.
    pub limited_by: Option<Limit>,
    /// Balance before.
    pub balance_before: i64,
    /// Balance after.
    pub balance_after: i64,
    /// Today's won counter after the game.
    pub won_today_after: i64,
    /// Today's lost counter after the game.
    pub lost_today_after: i64,
    /// The Gomoku rating before.
    pub rating_before: i64,
    /// The Gomoku rating after (equal to before unless a rated game moved it).
    pub rating_after: i64,
    /// What the game adds to the player's counts in its game type.
    pub counts: Counts,
    /// Rated games it adds (1 in a rated Gomoku room, else 0).
    pub rated_games_added: i64,
}

/// A history row to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryRow {
    /// Whose.
    pub player_id: PlayerId,
    /// What changed.
    pub kind: HistoryKind,
    /// Value before.
    pub before: i64,
    /// Value after.
    pub after: i64,
    /// Why.
    pub reason: String,
}

/// Everything a settlement changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettlementPlan {
    /// Per seat, in the order of the request.
    pub seats: Vec<SeatPlan>,
    /// Silver the house receives (penalties).
    pub house_silver: i64,
}

impl SettlementPlan {
    /// Whether any silver moves (a transfer is written only then).
    pub fn moves_silver(&self) -> bool {
        self.house_silver != 0 || self.seats.iter().any(|s| s.silver_delta != 0)
    }

    /// The history rows: silver and points when they changed, the title when its level
    /// changed, and the rating after every rated game (changed or not, so each player's
    /// rating history chains from game to game).
    pub fn history(&self, report: &GameReport) -> Vec<HistoryRow> {
        let mut rows = Vec::new();
        for (seat, plan) in report.seats.iter().zip(&self.seats) {
            let escaped = seat.outcome == Outcome::Escape;
            let mut row = |kind, before, after, reason: String| {
                rows.push(HistoryRow {
                    player_id: seat.player_id.clone(),
                    kind,
                    before,
                    after,
                    reason,
                });
            };
            if plan.silver_delta != 0 {
                let reason = if escaped { "escape penalty" } else { "game" };
                row(
                    HistoryKind::Silver,
                    plan.balance_before,
                    plan.balance_after,
                    reason.into(),
                );
            }
            if plan.points_after != plan.points_before {
                let reason = if escaped { "escape penalty" } else { "game" };
                row(
                    HistoryKind::Points,
                    plan.points_before,
                    plan.points_after,
                    reason.into(),
                );
            }
            if plan.title_after.level != plan.title_before.level {
                row(
                    HistoryKind::Title,
                    i64::from(plan.title_before.level),
                    i64::from(plan.title_after.level),
                    format!("{} → {}", plan.title_before.name, plan.title_after.name),
                );
            }
            if report.rated() {
                row(
                    HistoryKind::Rating,
                    plan.rating_before,
                    plan.rating_after,
                    "rated game".into(),
                );
            }
        }
        rows
    }
}

/// What settling `report` does, given its players' locked snapshots (in seat order).
///
/// # Panics
/// If the snapshots do not match the seats, or the report was not [`GameReport::check`]ed.
pub fn plan(report: &GameReport, snapshots: &[PlayerSnapshot], caps: &Caps) -> SettlementPlan {
    assert_eq!(report.seats.len(), snapshots.len(), "one snapshot per seat");
    for (seat, snapshot) in report.seats.iter().zip(snapshots) {
        assert_eq!(
            seat.player_id, snapshot.player_id,
            "snapshots in seat order"
        );
    }
    let stakes: Vec<Stake> = snapshots
        .iter()
        .enumerate()
        .map(|(i, s)| Stake {
            requested_silver: report.silver_requested(i),
            balance_silver: s.balance_silver,
            won_today_silver: s.won_today_silver,
            lost_today_silver: s.lost_today_silver,
        })
        .collect();
    let allocation = caps::allocate(&stakes, caps);
    let ratings = ratings_after(report, snapshots);

    let seats = report
        .seats
        .iter()
        .zip(snapshots)
        .enumerate()
        .map(|(i, (seat, snapshot))| {
            let moved = allocation.silver[i];
            let points_after = snapshot.points.saturating_add(seat.points);
            SeatPlan {
                points_before: snapshot.points,
                points_after,
                title_before: title_for(snapshot.points),
                title_after: title_for(points_after),
                silver_requested: stakes[i].requested_silver,
                silver_delta: moved,
                limited_by: allocation.limited_by[i],
                balance_before: snapshot.balance_silver,
                balance_after: snapshot.balance_silver + moved,
                won_today_after: snapshot.won_today_silver + moved.max(0),
                lost_today_after: snapshot.lost_today_silver + (-moved).max(0),
                rating_before: snapshot.gomoku_rating,
                rating_after: ratings[i],
                counts: seat.outcome.counts(),
                rated_games_added: i64::from(report.rated()),
            }
        })
        .collect();
    SettlementPlan {
        seats,
        house_silver: allocation.house_silver,
    }
}

/// The ratings after the game, per seat (unchanged unless it is a rated Gomoku game).
fn ratings_after(report: &GameReport, snapshots: &[PlayerSnapshot]) -> Vec<i64> {
    let unchanged = snapshots.iter().map(|s| s.gomoku_rating).collect();
    if !report.rated() {
        return unchanged;
    }
    // An escape is a loss for rating purposes.
    let outcome = match (report.seats[0].outcome, report.seats[1].outcome) {
        (Outcome::Win, _) => RatedOutcome::FirstWins,
        (_, Outcome::Win) => RatedOutcome::SecondWins,
        (Outcome::Draw, Outcome::Draw) => RatedOutcome::Draw,
        _ => return unchanged,
    };
    let rated = |s: &PlayerSnapshot| RatedPlayer {
        rating: s.gomoku_rating,
        rated_games: s.rated_games,
        professional_dan: s.professional_dan,
    };
    let (first, second) = rating::rate(rated(&snapshots[0]), rated(&snapshots[1]), outcome);
    vec![first, second]
}
