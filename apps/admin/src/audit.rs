//! The operator audit trail: `audit` (LedgerService.ListOperatorActions), one line per
//! action, newest first.

use gamehub_proto::ledger as lg;
use gamehub_render::thousands;

use crate::text::when;
use crate::{LedgerClient, status};

/// The most actions one page asks for.
const PAGE_SIZE: i32 = 200;

/// An action kind as the operator names it on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `grant`.
    Grant,
    /// `pro`.
    Pro,
    /// `name`.
    Name,
    /// `close-table`.
    CloseTable,
    /// `redeliver`.
    Redeliver,
}

impl Kind {
    /// Each kind with its command-line name: the desk's subcommand that does it.
    const NAMES: [(&'static str, Kind); 5] = [
        ("grant", Kind::Grant),
        ("pro", Kind::Pro),
        ("name", Kind::Name),
        ("close-table", Kind::CloseTable),
        ("redeliver", Kind::Redeliver),
    ];

    /// The API's value.
    fn to_proto(self) -> lg::OperatorActionKind {
        match self {
            Kind::Grant => lg::OperatorActionKind::GrantSilver,
            Kind::Pro => lg::OperatorActionKind::SetProfessional,
            Kind::Name => lg::OperatorActionKind::SetName,
            Kind::CloseTable => lg::OperatorActionKind::CloseTable,
            Kind::Redeliver => lg::OperatorActionKind::Redeliver,
        }
    }
}

/// `--kind`: a subcommand's name.
pub fn parse_kind(text: &str) -> Result<Kind, String> {
    Kind::NAMES
        .iter()
        .find(|(name, _)| *name == text)
        .map(|(_, kind)| *kind)
        .ok_or_else(|| {
            let names: Vec<&str> = Kind::NAMES.iter().map(|(name, _)| *name).collect();
            format!("must be one of {}", names.join(", "))
        })
}

/// `--since`, `--until`: RFC 3339, or a date (midnight UTC); Unix ms.
pub fn parse_time(text: &str) -> Result<i64, String> {
    if let Ok(at) = chrono::DateTime::parse_from_rfc3339(text) {
        return Ok(at.timestamp_millis());
    }
    chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .ok()
        .and_then(|day| day.and_hms_opt(0, 0, 0))
        .map(|at| at.and_utc().timestamp_millis())
        .ok_or_else(|| "must be RFC 3339 (2026-12-05T22:00:00Z) or a date (2026-12-05)".into())
}

/// What to list (empty and 0: no filter).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// Only this operator.
    pub operator: String,
    /// Only this player, table or game.
    pub target: String,
    /// Only this kind.
    pub kind: Option<Kind>,
    /// At or after, Unix ms.
    pub since_unix_ms: i64,
    /// Before, Unix ms.
    pub until_unix_ms: i64,
}

/// `gamehub admin audit`: at most `limit` actions matching `filter`, newest first.
pub async fn list(client: &mut LedgerClient, filter: &Filter, limit: i32) -> anyhow::Result<()> {
    let mut request = lg::ListOperatorActionsRequest {
        operator: filter.operator.clone(),
        target: filter.target.clone(),
        kind: filter
            .kind
            .map_or(lg::OperatorActionKind::Unspecified, Kind::to_proto) as i32,
        since_unix_ms: filter.since_unix_ms,
        until_unix_ms: filter.until_unix_ms,
        page_size: limit.clamp(1, PAGE_SIZE),
        page_token: String::new(),
    };
    let wanted = usize::try_from(limit).unwrap_or(0);
    let mut shown = 0;
    loop {
        let page = client
            .list_operator_actions(request.clone())
            .await
            .map_err(status)?
            .into_inner();
        for action in page.actions.iter().take(wanted - shown) {
            println!("{}", action_line(action));
            shown += 1;
        }
        if page.next_page_token.is_empty() {
            break;
        }
        if shown >= wanted {
            println!("… more: raise --limit or narrow the filters");
            break;
        }
        request.page_token = page.next_page_token;
    }
    if shown == 0 {
        println!("no operator actions match");
    }
    Ok(())
}

/// One action as a line: when, who, what to which target, why, the request id (and the
/// service that recorded it when not the operator).
pub fn action_line(a: &lg::OperatorAction) -> String {
    let what = match lg::OperatorActionKind::try_from(a.kind) {
        Ok(lg::OperatorActionKind::GrantSilver) => format!(
            "grant {} silver to {} (transfer {})",
            thousands(a.amount_silver),
            a.player_id,
            a.transfer_id
        ),
        Ok(lg::OperatorActionKind::SetProfessional) => format!(
            "pro {}: {} -> {}",
            a.player_id,
            dan(a.professional_dan_before),
            dan(a.professional_dan)
        ),
        Ok(lg::OperatorActionKind::SetName) => format!(
            "name {}: {} -> {}",
            a.player_id,
            shown_name(&a.name_before),
            shown_name(&a.name)
        ),
        Ok(lg::OperatorActionKind::CloseTable) => format!("close-table {}", a.table_id),
        Ok(lg::OperatorActionKind::Redeliver) if a.all_dead_letters => {
            "redeliver every dead letter".to_owned()
        }
        Ok(lg::OperatorActionKind::Redeliver) => format!("redeliver {}", a.game_id),
        _ => format!("action kind {}", a.kind),
    };
    let by = if a.recorded_by == a.operator {
        String::new()
    } else {
        format!(" (at {})", a.recorded_by)
    };
    format!(
        "{}  #{}  {}  {what}{by}  reason {:?}  request {}",
        when(a.at_unix_ms),
        a.action_id,
        a.operator,
        a.reason,
        a.request_id
    )
}

fn dan(dan: i32) -> String {
    if dan == 0 {
        "none".into()
    } else {
        format!("{dan}p")
    }
}

fn shown_name(name: &str) -> String {
    if name.is_empty() {
        "(none)".into()
    } else {
        format!("{name:?}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_says_who_what_why_and_the_request_id() {
        let line = action_line(&lg::OperatorAction {
            action_id: 7,
            request_id: "r-1".into(),
            kind: lg::OperatorActionKind::CloseTable as i32,
            operator: "ann".into(),
            recorded_by: "gomoku-referee".into(),
            at_unix_ms: 1_796_428_800_000,
            reason: "stuck".into(),
            table_id: "gt-1".into(),
            ..Default::default()
        });
        assert_eq!(
            line,
            "2026-12-05 00:00:00 UTC  #7  ann  close-table gt-1 (at gomoku-referee)  reason \"stuck\"  request r-1"
        );
    }
}
