//! A stored tournament as the API shows it.

use gamehub_proto::tournament as pb;
use tournament_rules::swiss::GameResult;

use crate::settings::Format;
use crate::tournament::{State, Tournament};

fn state(state: State) -> pb::State {
    match state {
        State::Registering => pb::State::Registering,
        State::Running => pb::State::Running,
        State::Finished => pb::State::Finished,
        State::Cancelled => pb::State::Cancelled,
    }
}

fn outcome(result: Option<GameResult>) -> pb::GameOutcome {
    match result {
        None => pb::GameOutcome::Unspecified,
        Some(GameResult::BlackWins) => pb::GameOutcome::BlackWins,
        Some(GameResult::WhiteWins) => pb::GameOutcome::WhiteWins,
        Some(GameResult::Draw) => pb::GameOutcome::Draw,
        Some(GameResult::BothLose) => pb::GameOutcome::BothLose,
    }
}

fn int(value: impl TryInto<i32>) -> i32 {
    value.try_into().unwrap_or(i32::MAX)
}

/// The tournament as `viewer` (a player id, or None) sees it.
pub fn tournament(t: &Tournament, version: i64, viewer: Option<&str>) -> pb::Tournament {
    let standings = match t.settings.format {
        Format::Swiss => t
            .swiss_standings()
            .into_iter()
            .map(|(player_id, l)| pb::Standing {
                place: int(l.place),
                player_id,
                score: f64::from(l.score_halves) / 2.0,
                buchholz: f64::from(l.buchholz_halves) / 2.0,
                sonneborn_berger: f64::from(l.sonneborn_berger_quarters) / 4.0,
                wins: int(l.wins),
                draws: int(l.draws),
                losses: int(l.losses),
                byes: int(l.byes),
                ..Default::default()
            })
            .collect(),
        Format::Elimination if t.started_at_ms > 0 => t
            .places()
            .into_iter()
            .enumerate()
            .filter_map(|(i, player_id)| {
                let e = t.entrant(&player_id)?;
                Some(pb::Standing {
                    place: int(i + 1),
                    chips: e.chips,
                    out_after_round: e.out_after_round.map_or(0, i32::from),
                    player_id,
                    ..Default::default()
                })
            })
            .collect(),
        Format::Elimination => Vec::new(),
    };
    pb::Tournament {
        tournament_id: t.id.clone(),
        settings: Some(t.settings.to_proto(t.rounds_total)),
        state: state(t.state) as i32,
        created_at_unix_ms: t.created_at_ms,
        started_at_unix_ms: t.started_at_ms,
        ended_at_unix_ms: t.ended_at_ms,
        players: t
            .players()
            .iter()
            .map(|e| pb::Entrant {
                player_id: e.player_id.clone(),
                seed: e.seed.map_or(0, |s| i32::from(s) + 1),
                out_after_round: e.out_after_round.map_or(0, i32::from),
                chips: e.chips,
            })
            .collect(),
        rounds_total: i32::from(t.rounds_total),
        current_round: t.rounds.last().map_or(0, |r| i32::from(r.number)),
        rounds: t
            .rounds
            .iter()
            .map(|r| pb::Round {
                number: i32::from(r.number),
                matches: r
                    .matches
                    .iter()
                    .map(|m| pb::Match {
                        board: i32::from(m.board),
                        player_ids: m.players.clone(),
                        table_id: m.table_id.clone().unwrap_or_default(),
                        finished: m.finished,
                        outcome: outcome(m.result) as i32,
                        deals_played: i32::from(m.deals_played),
                        chips_won: m.chips_won.clone(),
                    })
                    .collect(),
                bye_player_id: r.bye.clone().unwrap_or_default(),
                finished: r.finished,
            })
            .collect(),
        standings,
        pool_silver: t.pool_silver(),
        prizes: if t.state == State::Finished {
            t.prizes
                .iter()
                .map(|p| pb::PaidPrize {
                    place: i32::from(p.place),
                    player_id: p.player_id.clone(),
                    amount_silver: p.amount_silver,
                })
                .collect()
        } else {
            Vec::new()
        },
        cancel_reason: t.cancel_reason.clone(),
        version,
        your_table_id: viewer
            .and_then(|p| t.table_of(p))
            .unwrap_or_default()
            .to_owned(),
    }
}

/// The tournament as a list shows it.
pub fn summary(t: &Tournament) -> pb::TournamentSummary {
    pb::TournamentSummary {
        tournament_id: t.id.clone(),
        settings: Some(t.settings.to_proto(t.rounds_total)),
        state: state(t.state) as i32,
        players: int(t.players().len()),
        current_round: t.rounds.last().map_or(0, |r| i32::from(r.number)),
        rounds_total: i32::from(t.rounds_total),
        pool_silver: t.pool_silver(),
        created_at_unix_ms: t.created_at_ms,
    }
}
