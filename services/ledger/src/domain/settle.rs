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
}

fn seat_field(i: usize, name: &str) -> String {
    format!("players[{i}].{name}")
}

impl GameReport {
    /// Checks that the seats make a game of this type: seat count, roles, outcomes that
    /// go together, point signs that match the outcomes, distinct players, and points
    /// that do not pay winners more than losers lose.
    pub fn check(&self) -> Result<(), LedgerError> {
        let n = self.seats.len();
        let expected = match self.game_type {
            GameType::Gomoku => 2,
            GameType::Doudizhu => 3,
        };
        if n != expected {
            return Err(LedgerError::invalid(
                "players",
                format!(
                    "a {:?} game has {expected} players; got {n}",
                    self.game_type
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
        match self.game_type {
            GameType::Gomoku => self.check_gomoku()?,
            GameType::Doudizhu => self.check_doudizhu()?,
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

    fn check_gomoku(&self) -> Result<(), LedgerError> {
        for (i, seat) in self.seats.iter().enumerate() {
            if !matches!(seat.role, Role::Black | Role::White) {
                return Err(LedgerError::invalid(
                    seat_field(i, "role"),
                    "a Gomoku player is ROLE_BLACK or ROLE_WHITE",
                ));
            }
        }
        if self.seats[0].role == self.seats[1].role {
            return Err(LedgerError::invalid(
                "players",
                "a Gomoku game needs one ROLE_BLACK and one ROLE_WHITE",
            ));
        }
        use Outcome::*;
        let ok = matches!(
            (self.seats[0].outcome, self.seats[1].outcome),
            (Win, Loss) | (Loss, Win) | (Draw, Draw) | (Escape, Win) | (Win, Escape)
        );
        if !ok {
            return Err(LedgerError::invalid(
                "players",
                format!(
                    "outcomes {:?} and {:?} do not make a Gomoku result; expected a win and a loss, two draws, or an escape and a win",
                    self.seats[0].outcome, self.seats[1].outcome
                ),
            ));
        }
        if self.seats[0].offered_draw && self.seats[1].offered_draw {
            return Err(LedgerError::invalid(
                "players",
                "only one player can have offered the draw",
            ));
        }
        Ok(())
    }

    fn check_doudizhu(&self) -> Result<(), LedgerError> {
        let count = |role| self.seats.iter().filter(|s| s.role == role).count();
        let landlords = count(Role::Landlord);
        let bidding = count(Role::Bidder) == 3;
        let landlord_and_farmers = landlords == 1 && count(Role::Farmer) == 2;
        if !(bidding || landlord_and_farmers) {
            return Err(LedgerError::invalid(
                "players",
                "a Dou Dizhu deal has one ROLE_LANDLORD and two ROLE_FARMER, or three ROLE_BIDDER when it ended before a landlord was chosen",
            ));
        }
        let escapes = self
            .seats
            .iter()
            .filter(|s| s.outcome == Outcome::Escape)
            .count();
        let voids = self
            .seats
            .iter()
            .filter(|s| s.outcome == Outcome::Void)
            .count();
        if escapes == 1 && voids == 2 {
            return Ok(());
        }
        if bidding {
            return Err(LedgerError::invalid(
                "players",
                "a deal that ended during bidding ends by an escape: one PLAYER_OUTCOME_ESCAPE and two PLAYER_OUTCOME_VOID",
            ));
        }
        let landlord = self
            .seats
            .iter()
            .find(|s| s.role == Role::Landlord)
            .map(|s| s.outcome);
        let farmers_all = |outcome| {
            self.seats
                .iter()
                .filter(|s| s.role == Role::Farmer)
                .all(|s| s.outcome == outcome)
        };
        let ok = match landlord {
            Some(Outcome::Win) => farmers_all(Outcome::Loss),
            Some(Outcome::Loss) => farmers_all(Outcome::Win),
            _ => false,
        };
        if !ok {
            return Err(LedgerError::invalid(
                "players",
                "Dou Dizhu outcomes are: landlord wins and both farmers lose, landlord loses and both farmers win, or one escape and two voids",
            ));
        }
        Ok(())
    }

    /// Whether this game moves Gomoku ratings.
    pub fn rated(&self) -> bool {
        self.game_type == GameType::Gomoku && self.stakes.rated
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

#[cfg(test)]
mod tests {
    use super::*;

    fn seat(id: &str, role: Role, outcome: Outcome, points: i64) -> Seat {
        Seat {
            player_id: PlayerId::parse("player_id", id).unwrap(),
            role,
            outcome,
            points,
            offered_draw: false,
        }
    }

    fn report(game_type: GameType, seats: Vec<Seat>) -> GameReport {
        GameReport {
            game_id: "g-1".into(),
            game_type,
            stakes: Stakes {
                room_id: "room".into(),
                points_base: 1,
                silver_per_point: 100,
                min_balance_silver: 0,
                rated: true,
            },
            seats,
            reason: "five".into(),
            table_id: "t-1".into(),
            started_at_unix_ms: 1,
            ended_at_unix_ms: 2,
            record_format: "gomoku-text".into(),
            record_content: String::new(),
        }
    }

    fn snapshot(id: &str, balance: i64) -> PlayerSnapshot {
        PlayerSnapshot {
            player_id: PlayerId::parse("player_id", id).unwrap(),
            balance_silver: balance,
            won_today_silver: 0,
            lost_today_silver: 0,
            points: 0,
            gomoku_rating: 2000,
            rated_games: 0,
            professional_dan: 0,
        }
    }

    use GameType::*;
    use Outcome::*;
    use Role::*;

    #[test]
    fn consistent_reports_pass() {
        let ok = [
            report(
                Gomoku,
                vec![seat("a", Black, Win, 5), seat("b", White, Loss, -5)],
            ),
            report(
                Gomoku,
                vec![seat("a", Black, Escape, -10), seat("b", White, Win, 0)],
            ),
            report(
                Gomoku,
                vec![seat("a", Black, Draw, 0), seat("b", White, Draw, 0)],
            ),
            report(
                Doudizhu,
                vec![
                    seat("a", Landlord, Win, 4),
                    seat("b", Farmer, Loss, -2),
                    seat("c", Farmer, Loss, -2),
                ],
            ),
            report(
                Doudizhu,
                vec![
                    seat("a", Bidder, Void, 0),
                    seat("b", Bidder, Escape, -3),
                    seat("c", Bidder, Void, 0),
                ],
            ),
        ];
        for r in ok {
            r.check().unwrap();
        }
    }

    #[test]
    fn inconsistent_reports_say_what_to_fix() {
        let cases = [
            (
                report(Gomoku, vec![seat("a", Black, Win, 5)]),
                "players: a Gomoku game has 2 players; got 1",
            ),
            (
                report(
                    Gomoku,
                    vec![seat("a", Black, Win, 5), seat("a", White, Loss, -5)],
                ),
                "players[1].player_id: player a appears twice",
            ),
            (
                report(
                    Gomoku,
                    vec![seat("a", Black, Win, 5), seat("b", Black, Loss, -5)],
                ),
                "players: a Gomoku game needs one ROLE_BLACK and one ROLE_WHITE",
            ),
            (
                report(
                    Gomoku,
                    vec![seat("a", Black, Win, 5), seat("b", Landlord, Loss, -5)],
                ),
                "players[1].role: a Gomoku player is ROLE_BLACK or ROLE_WHITE",
            ),
            (
                report(
                    Gomoku,
                    vec![seat("a", Black, Win, 5), seat("b", White, Win, 0)],
                ),
                "players: outcomes Win and Win do not make a Gomoku result",
            ),
            (
                report(
                    Gomoku,
                    vec![seat("a", Black, Win, -5), seat("b", White, Loss, 5)],
                ),
                "players[0].points: -5 points do not fit outcome Win",
            ),
            (
                report(
                    Gomoku,
                    vec![seat("a", Black, Win, 6), seat("b", White, Loss, -5)],
                ),
                "players: points sum to +1",
            ),
            (
                report(
                    Doudizhu,
                    vec![
                        seat("a", Landlord, Win, 4),
                        seat("b", Landlord, Loss, -2),
                        seat("c", Farmer, Loss, -2),
                    ],
                ),
                "players: a Dou Dizhu deal has one ROLE_LANDLORD",
            ),
            (
                report(
                    Doudizhu,
                    vec![
                        seat("a", Landlord, Win, 4),
                        seat("b", Farmer, Win, 0),
                        seat("c", Farmer, Loss, -4),
                    ],
                ),
                "players: Dou Dizhu outcomes are",
            ),
            (
                report(
                    Doudizhu,
                    vec![
                        seat("a", Bidder, Win, 0),
                        seat("b", Bidder, Loss, 0),
                        seat("c", Bidder, Loss, 0),
                    ],
                ),
                "players: a deal that ended during bidding ends by an escape",
            ),
        ];
        for (r, expected) in cases {
            let message = r.check().unwrap_err().to_string();
            assert!(message.starts_with(expected), "{message} / {expected}");
        }
    }

    #[test]
    fn only_a_drawn_player_offers_a_draw() {
        let mut r = report(
            Gomoku,
            vec![seat("a", Black, Win, 5), seat("b", White, Loss, -5)],
        );
        r.seats[0].offered_draw = true;
        assert!(r.check().unwrap_err().to_string().contains("offered_draw"));
    }

    #[test]
    fn the_same_report_hashes_alike_and_any_change_differs() {
        let r = report(
            Gomoku,
            vec![seat("a", Black, Win, 5), seat("b", White, Loss, -5)],
        );
        assert_eq!(r.sha256(), r.clone().sha256());
        let mut changed = r.clone();
        changed.record_content.push('x');
        assert_ne!(r.sha256(), changed.sha256());
    }

    #[test]
    fn a_plan_moves_points_silver_titles_and_ratings() {
        let mut r = report(
            Gomoku,
            vec![seat("a", Black, Win, 5), seat("b", White, Loss, -5)],
        );
        r.stakes.silver_per_point = 1000;
        let mut a = snapshot("a", 0);
        a.points = 998;
        let plan = plan(&r, &[a, snapshot("b", 3000)], &Caps::default());
        assert_eq!(plan.seats[0].silver_delta, 3000);
        assert_eq!(plan.seats[0].limited_by, Some(Limit::Counterparty));
        assert_eq!(plan.seats[1].limited_by, Some(Limit::Balance));
        assert_eq!(plan.seats[0].points_after, 1003);
        assert_eq!(plan.seats[0].title_after.level, 2);
        assert_eq!(
            (plan.seats[0].rating_after, plan.seats[1].rating_after),
            (2010, 1990)
        );
        let kinds: Vec<_> = plan.history(&r).iter().map(|h| h.kind).collect();
        use HistoryKind as K;
        assert_eq!(
            kinds,
            vec![
                K::Silver,
                K::Points,
                K::Title,
                K::Rating,
                K::Silver,
                K::Points,
                K::Rating
            ]
        );
    }

    #[test]
    fn an_escape_is_a_rated_loss() {
        let r = report(
            Gomoku,
            vec![seat("a", Black, Escape, -10), seat("b", White, Win, 0)],
        );
        let plan = plan(
            &r,
            &[snapshot("a", 5000), snapshot("b", 0)],
            &Caps::default(),
        );
        assert_eq!(plan.house_silver, 1000);
        assert_eq!(plan.seats[0].silver_delta, -1000);
        assert_eq!(plan.seats[1].silver_delta, 0);
        assert_eq!(
            (plan.seats[0].rating_after, plan.seats[1].rating_after),
            (1990, 2010)
        );
    }
}
