//! Settlements the ledger refused, parked at the game services: `dead-letters`,
//! `redeliver`.

use gamehub_proto::operator as op;

use crate::text::{age, now_ms, when};
use crate::{Desks, status};

/// `gamehub admin dead-letters`: at most `limit` dead letters per game service
/// (TableOperatorService.ListDeadLetters), and what to do about them.
pub async fn list(desks: Desks, limit: i32) -> anyhow::Result<()> {
    let now = now_ms();
    let mut any = false;
    for (game, mut desk) in desks {
        let list = desk
            .list_dead_letters(op::ListDeadLettersRequest { limit })
            .await
            .map_err(status)?
            .into_inner();
        println!("{game}: {} dead letter(s)", list.total);
        for letter in &list.letters {
            any = true;
            println!(
                "  {}  table {}  ended {} ago  parked {}  {}",
                letter.game_id,
                letter.table_id,
                age(now, letter.created_at_unix_ms),
                if letter.dead_at_unix_ms > 0 {
                    when(letter.dead_at_unix_ms)
                } else {
                    "-".into()
                },
                letter.reason
            );
        }
    }
    if any {
        println!("fix the cause, then: gamehub admin redeliver GAME_ID (or --all)");
    }
    Ok(())
}

/// `gamehub admin redeliver`: the dead letter of `game_id`, or every one with `all`,
/// back into its service's outbox (TableOperatorService.Redeliver), for `reason` under
/// `request_id` or a fresh one. With `all` both services act, each under its own id
/// (`ID.gomoku`, `ID.doudizhu`): two actions, two rows in the audit trail.
pub async fn redeliver(
    desks: Desks,
    game_id: Option<String>,
    all: bool,
    reason: String,
    request_id: Option<String>,
) -> anyhow::Result<()> {
    let id = request_id.unwrap_or_else(gamehub_drive::api::request_id);
    let mut moved = Vec::new();
    for (game, mut desk) in desks {
        let request = op::RedeliverRequest {
            game_id: game_id.clone().unwrap_or_default(),
            all,
            reason: reason.clone(),
            request_id: if all {
                format!("{id}.{game}")
            } else {
                id.clone()
            },
        };
        match desk.redeliver(request).await {
            Ok(answer) => moved.extend(
                answer
                    .into_inner()
                    .game_ids
                    .into_iter()
                    .map(|id| format!("{id} ({game})")),
            ),
            // One game lives at one service: the other answers NOT_FOUND.
            Err(e) if e.code() == tonic::Code::NotFound && !all => {}
            Err(e) => return Err(status(e)),
        }
    }
    match (moved.is_empty(), game_id) {
        (true, Some(id)) => anyhow::bail!("no dead letter for game {id}"),
        (true, None) => println!("no dead letters"),
        (false, _) => {
            println!(
                "back in the outbox, the settler delivers each once: {} (request id {id})",
                moved.join(", ")
            );
        }
    }
    Ok(())
}
