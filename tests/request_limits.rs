//! Every string field of every request, driven by the proto descriptors: each has a
//! documented limit (a `Limit:` line in its proto comment), and over the real API an
//! empty required value and an oversized value are refused with INVALID_ARGUMENT naming
//! the field, in a short message that quotes at most a short excerpt of the input.
//!
//! A request per RPC that the services would accept (the baseline) is changed in one
//! string field at a time, so the refusal can only be about that field, and the
//! baseline itself is checked not to be refused as malformed (the test is not vacuous).
#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::str::FromStr;
use std::time::Duration;

use gamehub_drive::api::request_id;
use gamehub_platform::auth::Role;
use gamehub_platform::error::EXCERPT_CHARS;
use gamehub_proto::common::{GameType, RoomStakes};
use gamehub_proto::doudizhu as ddz;
use gamehub_proto::gomoku as gm;
use gamehub_proto::ledger as lg;
use gamehub_proto::matchmaking as mm;
use gamehub_proto::operator as op;
use gamehub_proto::tournament as tn;
use gamehub_testkit_services::platform::TestPlatform;
use prost_reflect::{
    DescriptorPool, DynamicMessage, FieldDescriptor, Kind, MessageDescriptor, MethodDescriptor,
    ReflectMessage, Value,
};
use tonic::{Code, Status};

/// The longest status message any refusal here may have: far below the few KiB where
/// gRPC clients start failing on the headers that carry it.
const MAX_STATUS_MESSAGE_BYTES: usize = 320;
/// What oversized values are made of: it appears in no message of the services, so a
/// run of it longer than an excerpt in a status means the input was echoed.
const FILLER: char = 'q';
/// The size of the "huge" value sent to every field limited in characters.
const HUGE_CHARS: usize = 100_000;
/// The player the player-token calls act as.
const PLAYER: &str = "limits-player";
/// A table id of the right shape that no table has.
const NO_TABLE: &str = "gt-000000000000000000000000";

/// A field's documented limit.
#[derive(Debug, Clone, Copy)]
struct Limit {
    required: bool,
    max: usize,
    bytes: bool,
}

/// The leading comment of a field in its proto file.
fn comment(field: &FieldDescriptor) -> String {
    let file = field.parent_file();
    file.file_descriptor_proto()
        .source_code_info
        .as_ref()
        .and_then(|info| {
            info.location
                .iter()
                .find(|location| location.path == field.path())
        })
        .and_then(|location| location.leading_comments.clone())
        .unwrap_or_default()
}

/// Reads `Limit: required|optional, [each ]at most N characters|bytes.` from a comment.
fn documented_limit(field: &FieldDescriptor) -> Result<Limit, String> {
    let text = comment(field).replace('\n', " ");
    let missing = || {
        format!(
            "{}: no `Limit: required|optional, at most N characters|bytes.` line in its proto comment",
            field.full_name()
        )
    };
    let rest = text.split_once("Limit: ").ok_or_else(missing)?.1;
    let sentence = rest.split_once('.').ok_or_else(missing)?.0;
    let (presence, bound) = sentence.split_once(", ").ok_or_else(missing)?;
    let required = match presence {
        "required" => true,
        "optional" => false,
        _ => return Err(missing()),
    };
    let bound = bound.strip_prefix("each ").unwrap_or(bound);
    let words: Vec<&str> = bound.split(' ').collect();
    let ["at", "most", number, unit] = words.as_slice() else {
        return Err(missing());
    };
    let max = number.replace(',', "").parse().map_err(|_| missing())?;
    let bytes = match *unit {
        "characters" => false,
        "bytes" => true,
        _ => return Err(missing()),
    };
    Ok(Limit {
        required,
        max,
        bytes,
    })
}

/// One step from a message to a string field: the field, and for a repeated message
/// field the element the path goes through.
#[derive(Debug, Clone)]
struct Step {
    field: FieldDescriptor,
    index: Option<usize>,
}

/// A path to a string field, e.g. `players[0].player_id`.
#[derive(Debug, Clone)]
struct StringField {
    steps: Vec<Step>,
}

impl StringField {
    fn leaf(&self) -> &FieldDescriptor {
        &self.steps.last().unwrap().field
    }

    fn name(&self) -> String {
        let mut name = String::new();
        for (i, step) in self.steps.iter().enumerate() {
            if i > 0 {
                name.push('.');
            }
            name.push_str(step.field.name());
            if let Some(index) = step.index {
                name.push_str(&format!("[{index}]"));
            }
        }
        name
    }

    /// `message` with this field set to `value` (the first element of a repeated string
    /// field, added when the list is empty).
    fn set(&self, message: &DynamicMessage, value: &str) -> DynamicMessage {
        let mut message = message.clone();
        set_in(&mut message, &self.steps, value);
        message
    }
}

fn set_in(message: &mut DynamicMessage, steps: &[Step], value: &str) {
    let (step, rest) = steps.split_first().unwrap();
    let slot = message.get_field_mut(&step.field);
    if rest.is_empty() {
        match slot {
            Value::List(items) if items.is_empty() => items.push(Value::String(value.into())),
            Value::List(items) => items[0] = Value::String(value.into()),
            other => *other = Value::String(value.into()),
        }
        return;
    }
    let inner = match (slot, step.index) {
        (Value::List(items), Some(index)) => &mut items[index],
        (other, _) => other,
    };
    match inner {
        Value::Message(inner) => set_in(inner, rest, value),
        other => panic!("{} is not a message: {other:?}", step.field.full_name()),
    }
}

/// Every string field reachable from `message` (through set message fields and the
/// first element of repeated message fields).
fn string_fields(message: &DynamicMessage, prefix: &[Step], out: &mut Vec<StringField>) {
    assert!(prefix.len() < 4, "request messages nest at most 3 deep");
    for field in message.descriptor().fields() {
        match field.kind() {
            Kind::String => {
                let mut steps = prefix.to_vec();
                steps.push(Step { field, index: None });
                out.push(StringField { steps });
            }
            Kind::Message(_) => {
                let value = message.get_field(&field);
                let (inner, index) = match value.as_ref() {
                    Value::List(items) => match items.first() {
                        Some(Value::Message(inner)) => (inner.clone(), Some(0)),
                        _ => continue,
                    },
                    Value::Message(inner) if message.has_field(&field) => (inner.clone(), None),
                    _ => continue,
                };
                let mut steps = prefix.to_vec();
                steps.push(Step { field, index });
                string_fields(&inner, &steps, out);
            }
            _ => {}
        }
    }
}

/// The role each RPC is called with here, and a request it accepts as well formed.
struct Baselines {
    by_input: BTreeMap<&'static str, (Role, Vec<u8>)>,
}

impl Baselines {
    fn add(&mut self, name: &'static str, role: Role, message: impl prost::Message) {
        self.by_input.insert(name, (role, message.encode_to_vec()));
    }

    fn new() -> Baselines {
        let mut b = Baselines {
            by_input: BTreeMap::new(),
        };
        let free = |room: &str| RoomStakes {
            room_id: room.into(),
            points_base: 1,
            silver_per_point: 0,
            min_balance_silver: 0,
            rated: false,
        };
        let point = |text: &str| gm::Point {
            text: text.into(),
            x: 0,
            y: 0,
        };
        let act = || (NO_TABLE.to_owned(), request_id());

        b.add(
            "gamehub.matchmaking.v1.EnqueueRequest",
            Role::Player,
            mm::EnqueueRequest {
                room_id: "gomoku-free".into(),
                request_id: request_id(),
                player_id: String::new(),
            },
        );
        let ticket = "gomoku-free.0193c4e5a1b27c3d8e9f0a1b2c3d4e5f".to_owned();
        b.add(
            "gamehub.matchmaking.v1.CancelTicketRequest",
            Role::Player,
            mm::CancelTicketRequest {
                ticket_id: ticket.clone(),
            },
        );
        b.add(
            "gamehub.matchmaking.v1.GetTicketRequest",
            Role::Player,
            mm::GetTicketRequest {
                ticket_id: ticket.clone(),
            },
        );
        b.add(
            "gamehub.matchmaking.v1.WatchTicketRequest",
            Role::Player,
            mm::WatchTicketRequest { ticket_id: ticket },
        );

        b.add(
            "gamehub.gomoku.v1.OpenTableRequest",
            Role::Service,
            gm::OpenTableRequest {
                bot_seats: Vec::new(),
                friends_table: false,
                profiles: Vec::new(),
                request_id: request_id(),
                stakes: Some(free("gomoku-free")),
                rule_set: gm::RuleSet::Freestyle as i32,
                time_control: Some(gm::TimeControl {
                    per_move_ms: 0,
                    total_ms: 0,
                }),
                player_ids: vec!["limits-black".into(), "limits-white".into()],
                first_black_seat: 0,
                designated_opening: String::new(),
                paired_games: false,
            },
        );
        b.add(
            "gamehub.gomoku.v1.GetTableRequest",
            Role::Player,
            gm::GetTableRequest {
                table_id: NO_TABLE.into(),
            },
        );
        let (table_id, request_id_) = act();
        b.add(
            "gamehub.gomoku.v1.PlaceStoneRequest",
            Role::Player,
            gm::PlaceStoneRequest {
                table_id,
                request_id: request_id_,
                point: Some(point("h8")),
                known_stones: 0,
                known_game: 0,
            },
        );
        macro_rules! plain_action {
            ($name:literal, $ty:ident) => {{
                let (table_id, request_id) = act();
                b.add(
                    $name,
                    Role::Player,
                    gm::$ty {
                        table_id,
                        request_id,
                    },
                );
            }};
        }
        plain_action!(
            "gamehub.gomoku.v1.ClaimForbiddenRequest",
            ClaimForbiddenRequest
        );
        plain_action!("gamehub.gomoku.v1.ResignRequest", ResignRequest);
        plain_action!("gamehub.gomoku.v1.OfferDrawRequest", OfferDrawRequest);
        plain_action!("gamehub.gomoku.v1.SwapRequest", SwapRequest);
        let (table_id, request_id_) = act();
        b.add(
            "gamehub.gomoku.v1.LeaveRequest",
            Role::Player,
            gm::LeaveRequest {
                table_id,
                request_id: request_id_,
                player_id: String::new(),
            },
        );
        plain_action!("gamehub.gomoku.v1.NextGameRequest", NextGameRequest);
        let (table_id, request_id_) = act();
        b.add(
            "gamehub.gomoku.v1.AnswerDrawRequest",
            Role::Player,
            gm::AnswerDrawRequest {
                table_id,
                request_id: request_id_,
                accept: true,
            },
        );
        let (table_id, request_id_) = act();
        b.add(
            "gamehub.gomoku.v1.ProposeFifthMovesRequest",
            Role::Player,
            gm::ProposeFifthMovesRequest {
                table_id,
                request_id: request_id_,
                points: vec![point("j7"), point("g9")],
            },
        );
        let (table_id, request_id_) = act();
        b.add(
            "gamehub.gomoku.v1.ChooseFifthMoveRequest",
            Role::Player,
            gm::ChooseFifthMoveRequest {
                table_id,
                request_id: request_id_,
                point: Some(point("j7")),
            },
        );
        b.add(
            "gamehub.gomoku.v1.WatchRequest",
            Role::Player,
            gm::WatchRequest {
                table_id: NO_TABLE.into(),
                after_event_id: 0,
            },
        );
        b.add(
            "gamehub.gomoku.v1.GetRecordRequest",
            Role::Player,
            gm::GetRecordRequest {
                table_id: NO_TABLE.into(),
                game_number: 0,
            },
        );
        b.add(
            "gamehub.gomoku.v1.ExportRecordRequest",
            Role::Player,
            gm::ExportRecordRequest {
                table_id: NO_TABLE.into(),
                game_number: 0,
                format: gm::RecordFormat::Text as i32,
            },
        );
        b.add(
            "gamehub.gomoku.v1.LoadRecordRequest",
            Role::Player,
            gm::LoadRecordRequest {
                format: gm::RecordFormat::Text as i32,
                content: "[RuleSet \"freestyle\"]\n\nh8 h9\n".into(),
                rule_set: 0,
            },
        );

        let ddz_table = "ddz-000000000000000000000000".to_owned();
        b.add(
            "gamehub.doudizhu.v1.OpenTableRequest",
            Role::Service,
            ddz::OpenTableRequest {
                bot_seats: Vec::new(),
                friends_table: false,
                profiles: Vec::new(),
                request_id: request_id(),
                stakes: Some(free("doudizhu-free")),
                turn_time_ms: 0,
                player_ids: vec!["limits-a".into(), "limits-b".into(), "limits-c".into()],
                test_seeds: Vec::new(),
                rule_set: String::new(),
            },
        );
        b.add(
            "gamehub.doudizhu.v1.GetTableRequest",
            Role::Player,
            ddz::GetTableRequest {
                table_id: ddz_table.clone(),
                as_spectator: false,
            },
        );
        b.add(
            "gamehub.doudizhu.v1.BidRequest",
            Role::Player,
            ddz::BidRequest {
                table_id: ddz_table.clone(),
                request_id: request_id(),
                points: 1,
            },
        );
        b.add(
            "gamehub.doudizhu.v1.PlayRequest",
            Role::Player,
            ddz::PlayRequest {
                table_id: ddz_table.clone(),
                request_id: request_id(),
                ranks: "3".into(),
                cards: Vec::new(),
                meant: String::new(),
            },
        );
        b.add(
            "gamehub.doudizhu.v1.PassRequest",
            Role::Player,
            ddz::PassRequest {
                table_id: ddz_table.clone(),
                request_id: request_id(),
            },
        );
        b.add(
            "gamehub.doudizhu.v1.HintRequest",
            Role::Player,
            ddz::HintRequest {
                table_id: ddz_table.clone(),
            },
        );
        b.add(
            "gamehub.doudizhu.v1.SetAutoPlayRequest",
            Role::Player,
            ddz::SetAutoPlayRequest {
                table_id: ddz_table.clone(),
                request_id: request_id(),
                on: true,
            },
        );
        b.add(
            "gamehub.doudizhu.v1.LeaveRequest",
            Role::Player,
            ddz::LeaveRequest {
                player_id: String::new(),
                table_id: ddz_table.clone(),
                request_id: request_id(),
            },
        );
        b.add(
            "gamehub.doudizhu.v1.NextDealRequest",
            Role::Player,
            ddz::NextDealRequest {
                table_id: ddz_table.clone(),
                request_id: request_id(),
            },
        );
        b.add(
            "gamehub.doudizhu.v1.WatchRequest",
            Role::Player,
            ddz::WatchRequest {
                table_id: ddz_table.clone(),
                after_event_id: 0,
                as_spectator: false,
            },
        );
        b.add(
            "gamehub.doudizhu.v1.GetDealRecordRequest",
            Role::Player,
            ddz::GetDealRecordRequest {
                table_id: ddz_table,
                deal_number: 1,
            },
        );

        b.add(
            "gamehub.ledger.v1.GetAccountRequest",
            Role::Player,
            lg::GetAccountRequest {
                player_id: String::new(),
            },
        );
        b.add(
            "gamehub.ledger.v1.GrantSilverRequest",
            Role::Operator,
            lg::GrantSilverRequest {
                request_id: request_id(),
                player_id: PLAYER.into(),
                amount_silver: 1,
                reason: "limits test".into(),
            },
        );
        let now_ms = 1_790_000_000_000;
        let seat =
            |player: &str, role: lg::Role, outcome: lg::PlayerOutcome, points| lg::PlayerResult {
                player_id: player.into(),
                role: role as i32,
                outcome: outcome as i32,
                points,
                offered_draw: false,
            };
        b.add(
            "gamehub.ledger.v1.SettleGameRequest",
            Role::Service,
            lg::SettleGameRequest {
                friends_table: false,
                game_id: "gt-limits:1".into(),
                game_type: GameType::Gomoku as i32,
                stakes: Some(free("gomoku-free")),
                players: vec![
                    seat("limits-black", lg::Role::Black, lg::PlayerOutcome::Win, 1),
                    seat("limits-white", lg::Role::White, lg::PlayerOutcome::Loss, -1),
                ],
                reason: "five".into(),
                table_id: "gt-limits".into(),
                started_at_unix_ms: now_ms,
                ended_at_unix_ms: now_ms + 1000,
                record: Some(lg::GameRecord {
                    format: "gomoku-text".into(),
                    content: "h8 h9".into(),
                }),
            },
        );
        b.add(
            "gamehub.ledger.v1.CheckEligibilityRequest",
            Role::Player,
            lg::CheckEligibilityRequest {
                player_id: String::new(),
                stakes: Some(free("gomoku-free")),
            },
        );
        b.add(
            "gamehub.ledger.v1.ListHistoryRequest",
            Role::Player,
            lg::ListHistoryRequest {
                player_id: String::new(),
                ..Default::default()
            },
        );
        b.add(
            "gamehub.ledger.v1.GetGameRecordRequest",
            Role::Player,
            lg::GetGameRecordRequest {
                game_id: "gt-000000000000000000000000:1".into(),
            },
        );
        b.add(
            "gamehub.ledger.v1.ListGamesRequest",
            Role::Player,
            lg::ListGamesRequest {
                player_id: String::new(),
                ..Default::default()
            },
        );
        b.add(
            "gamehub.ledger.v1.GetLeaderboardRequest",
            Role::Player,
            lg::GetLeaderboardRequest {
                board: lg::Board::GomokuPoints as i32,
                limit: 0,
                around_player_id: String::new(),
            },
        );
        b.add(
            "gamehub.ledger.v1.SetProfessionalRequest",
            Role::Operator,
            lg::SetProfessionalRequest {
                player_id: PLAYER.into(),
                professional_dan: 0,
                reason: "limits".into(),
                request_id: request_id(),
            },
        );
        b.add(
            "gamehub.ledger.v1.SetNameRequest",
            Role::Player,
            lg::SetNameRequest {
                player_id: PLAYER.into(),
                name: "limits".into(),
                reason: String::new(),
                request_id: String::new(),
            },
        );
        b.add(
            "gamehub.ledger.v1.GetProfilesRequest",
            Role::Player,
            lg::GetProfilesRequest {
                player_ids: vec![PLAYER.into()],
                game_type: GameType::Gomoku as i32,
            },
        );
        b.add(
            "gamehub.matchmaking.v1.OpenFriendsTableRequest",
            Role::Player,
            mm::OpenFriendsTableRequest {
                room_id: "gomoku-free".into(),
                request_id: request_id(),
            },
        );
        // A well-formed code no table has.
        let code = || "ZZZZZZ".to_owned();
        b.add(
            "gamehub.matchmaking.v1.GetFriendsTableRequest",
            Role::Player,
            mm::GetFriendsTableRequest { code: code() },
        );
        b.add(
            "gamehub.matchmaking.v1.WatchFriendsTableRequest",
            Role::Player,
            mm::WatchFriendsTableRequest { code: code() },
        );
        b.add(
            "gamehub.matchmaking.v1.JoinFriendsTableRequest",
            Role::Player,
            mm::JoinFriendsTableRequest {
                code: code(),
                seat: None,
            },
        );
        b.add(
            "gamehub.matchmaking.v1.SetReadyRequest",
            Role::Player,
            mm::SetReadyRequest {
                code: code(),
                ready: true,
            },
        );
        b.add(
            "gamehub.matchmaking.v1.LeaveFriendsTableRequest",
            Role::Player,
            mm::LeaveFriendsTableRequest { code: code() },
        );
        b.add(
            "gamehub.matchmaking.v1.RemoveFromFriendsTableRequest",
            Role::Player,
            mm::RemoveFromFriendsTableRequest {
                code: code(),
                player_id: "limits-2".into(),
            },
        );
        b.add(
            "gamehub.matchmaking.v1.AddBotsRequest",
            Role::Player,
            mm::AddBotsRequest { code: code() },
        );
        b.add(
            "gamehub.matchmaking.v1.CloseFriendsTableRequest",
            Role::Player,
            mm::CloseFriendsTableRequest { code: code() },
        );
        b.add(
            "gamehub.gomoku.v1.ListTablesRequest",
            Role::Player,
            gm::ListTablesRequest {
                room_id: "gomoku-free".into(),
                page_size: 0,
                page_token: String::new(),
            },
        );
        b.add(
            "gamehub.doudizhu.v1.ListTablesRequest",
            Role::Player,
            ddz::ListTablesRequest {
                room_id: "doudizhu-free".into(),
                page_size: 0,
                page_token: String::new(),
            },
        );
        b.add(
            "gamehub.matchmaking.v1.LocatePlayerRequest",
            Role::Player,
            mm::LocatePlayerRequest {
                player_id: PLAYER.into(),
            },
        );
        b.add(
            "gamehub.operator.v1.CloseTableRequest",
            Role::Operator,
            op::CloseTableRequest {
                table_id: NO_TABLE.into(),
                reason: "limits".into(),
                request_id: request_id(),
            },
        );
        b.add(
            "gamehub.operator.v1.RedeliverRequest",
            Role::Operator,
            op::RedeliverRequest {
                game_id: "no-such-game".into(),
                all: false,
                reason: "limits".into(),
                request_id: request_id(),
            },
        );
        b.add(
            "gamehub.ledger.v1.ListOperatorActionsRequest",
            Role::Operator,
            lg::ListOperatorActionsRequest::default(),
        );
        b.add(
            "gamehub.tournament.v1.CreateTournamentRequest",
            Role::Operator,
            tn::CreateTournamentRequest {
                request_id: request_id(),
                settings: Some(tn::TournamentSettings {
                    name: "limits".into(),
                    game_type: gamehub_proto::common::GameType::Gomoku as i32,
                    room_id: "gomoku-free".into(),
                    min_players: 2,
                    max_players: 4,
                    ..Default::default()
                }),
            },
        );
        b.add(
            "gamehub.tournament.v1.ListTournamentsRequest",
            Role::Player,
            tn::ListTournamentsRequest::default(),
        );
        b.add(
            "gamehub.tournament.v1.CancelTournamentRequest",
            Role::Operator,
            tn::CancelTournamentRequest {
                tournament_id: "tn-000000000000000000000000".into(),
                reason: "limits".into(),
            },
        );
        let fee = || lg::HoldEntryFeeRequest {
            request_id: request_id(),
            tournament_id: "tn-limits".into(),
            player_id: PLAYER.into(),
            amount_silver: 1,
            reason: "limits".into(),
        };
        b.add(
            "gamehub.ledger.v1.HoldEntryFeeRequest",
            Role::Service,
            fee(),
        );
        let f = fee();
        b.add(
            "gamehub.ledger.v1.RefundEntryFeeRequest",
            Role::Service,
            lg::RefundEntryFeeRequest {
                request_id: f.request_id,
                tournament_id: f.tournament_id,
                player_id: f.player_id,
                amount_silver: f.amount_silver,
                reason: f.reason,
            },
        );
        b.add(
            "gamehub.ledger.v1.PayPrizesRequest",
            Role::Service,
            lg::PayPrizesRequest {
                request_id: request_id(),
                tournament_id: "tn-limits".into(),
                prizes: vec![lg::Prize {
                    player_id: PLAYER.into(),
                    amount_silver: 1,
                }],
                reason: "limits".into(),
            },
        );
        b.add(
            "gamehub.ledger.v1.RecordOperatorActionRequest",
            Role::Service,
            lg::RecordOperatorActionRequest {
                request_id: request_id(),
                kind: lg::OperatorActionKind::CloseTable as i32,
                operator: "limits-operator".into(),
                table_id: NO_TABLE.into(),
                game_id: String::new(),
                all_dead_letters: false,
                reason: "limits".into(),
            },
        );
        b
    }

    /// The role and baseline for `input`. An RPC added without a baseline here gets a
    /// player token and its request with every string field set to a valid id; its
    /// baseline check says when that is not enough.
    fn get(&self, input: &MessageDescriptor) -> (Role, DynamicMessage) {
        match self.by_input.get(input.full_name()) {
            Some((role, bytes)) => (
                *role,
                DynamicMessage::decode(input.clone(), bytes.as_slice()).unwrap(),
            ),
            None => {
                let mut message = DynamicMessage::new(input.clone());
                for field in input.fields() {
                    if field.kind() == Kind::String {
                        let value = Value::String("limits-1".into());
                        if field.is_list() {
                            message.set_field(&field, Value::List(vec![value]));
                        } else {
                            message.set_field(&field, value);
                        }
                    }
                }
                (Role::Player, message)
            }
        }
    }
}

/// Calls `method` with `message`; the status of the call (or of a stream's first item).
async fn call(
    tp: &TestPlatform,
    method: &MethodDescriptor,
    role: Role,
    message: DynamicMessage,
) -> Result<(), Status> {
    let service = method.parent_service();
    let url = match service.package_name() {
        "gamehub.matchmaking.v1" => &tp.endpoints.matchmaking,
        "gamehub.gomoku.v1" => &tp.endpoints.gomoku,
        "gamehub.doudizhu.v1" => &tp.endpoints.doudizhu,
        "gamehub.ledger.v1" => &tp.endpoints.ledger,
        "gamehub.tournament.v1" => &tp.endpoints.tournaments,
        // Served by both game services; the referee's answers for its tables.
        "gamehub.operator.v1" => &tp.endpoints.gomoku,
        other => panic!("no endpoint for package {other}"),
    };
    let subject = match role {
        Role::Player => PLAYER,
        // The service the access table lets call it: matchmaking where it may, else the
        // tournament service where it may, else a game service (the baselines settle
        // Gomoku games).
        Role::Service => {
            let path = format!("/{}/{}", service.full_name(), method.name());
            let callers = gamehub_platform::access::callers_of(&path).unwrap_or_default();
            if callers.contains(&gamehub_platform::access::Who::Matchmaking) {
                gamehub_platform::auth::MATCHMAKING_SUBJECT
            } else if callers.contains(&gamehub_platform::access::Who::Tournaments) {
                gamehub_platform::auth::TOURNAMENTS_SUBJECT
            } else {
                gamehub_terms::games::GOMOKU.service.identity
            }
        }
        Role::Operator => "limits-operator",
    };
    let channel = gamehub_testkit::tokens::channel(url, &tp.config.keys, subject, role);
    let mut grpc = tonic::client::Grpc::new(channel);
    grpc.ready()
        .await
        .map_err(|e| Status::unavailable(format!("channel not ready: {e}")))?;
    let path =
        http::uri::PathAndQuery::from_str(&format!("/{}/{}", service.full_name(), method.name()))
            .unwrap();
    let codec = tonic_prost::ProstCodec::<DynamicMessage, ()>::default();
    let request = tonic::Request::new(message);
    if method.is_server_streaming() {
        let mut stream = grpc
            .server_streaming(request, path, codec)
            .await?
            .into_inner();
        match tokio::time::timeout(Duration::from_secs(5), stream.message()).await {
            Ok(first) => first.map(|_| ()),
            // An open stream with nothing to say yet was accepted.
            Err(_) => Ok(()),
        }
    } else {
        grpc.unary(request, path, codec).await.map(|_| ())
    }
}

/// What a refusal of `field` must look like; `None` when it does.
fn refusal_problem(field: &StringField, result: &Result<(), Status>) -> Option<String> {
    let name = field.name();
    let status = match result {
        Ok(()) => return Some(format!("{name}: accepted")),
        Err(status) => status,
    };
    let message = status.message();
    let first = field.steps[0].field.name();
    if status.code() != Code::InvalidArgument {
        return Some(format!("{name}: {:?} {message:?}", status.code()));
    }
    if !message.starts_with(first) || !message.contains(field.leaf().name()) {
        return Some(format!(
            "{name}: the message does not name the field: {message:?}"
        ));
    }
    if message.len() > MAX_STATUS_MESSAGE_BYTES {
        return Some(format!(
            "{name}: a {} byte message: {:?}…",
            message.len(),
            message.chars().take(200).collect::<String>()
        ));
    }
    if message.contains(&FILLER.to_string().repeat(EXCERPT_CHARS + 1)) {
        return Some(format!("{name}: the message echoes the input: {message:?}"));
    }
    None
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_string_field_of_every_request_is_limited_and_never_echoed() {
    // Every friends' call below asks for an unknown code: none may be refused for
    // guessing before its fields are checked.
    let tp = TestPlatform::start(&[("GAMEHUB_FRIENDS_CODE_MISSES", "1000000")])
        .await
        .unwrap();
    let pool = DescriptorPool::decode(gamehub_proto::FILE_DESCRIPTOR_SET).unwrap();
    let baselines = Baselines::new();
    let mut problems = Vec::new();
    let mut checked_fields = 0;
    let mut calls = 0;

    for service in pool.services() {
        for method in service.methods() {
            let (role, baseline) = baselines.get(&method.input());
            let mut fields = Vec::new();
            string_fields(&baseline, &[], &mut fields);
            if fields.is_empty() {
                continue;
            }
            // The baseline is well formed: whatever refuses a changed copy is the change.
            let result = call(&tp, &method, role, baseline.clone()).await;
            calls += 1;
            if let Err(status) = &result
                && matches!(
                    status.code(),
                    Code::InvalidArgument | Code::PermissionDenied | Code::Unauthenticated
                )
            {
                problems.push(format!(
                    "{}: the baseline request is refused: {status:?}",
                    method.full_name()
                ));
                continue;
            }
            for field in fields {
                checked_fields += 1;
                let name = format!("{}({})", method.full_name(), field.name());
                let limit = match documented_limit(field.leaf()) {
                    Ok(limit) => limit,
                    Err(problem) => {
                        problems.push(format!("{name}: {problem}"));
                        continue;
                    }
                };
                let over = FILLER.to_string().repeat(limit.max + 1);
                let huge_len = if limit.bytes {
                    limit.max + 64 * 1024
                } else {
                    HUGE_CHARS.max(limit.max + 1)
                };
                let huge = FILLER.to_string().repeat(huge_len);
                let mut cases = vec![("one over the limit", over), ("huge", huge)];
                if limit.required {
                    cases.push(("empty", String::new()));
                }
                for (case, value) in cases {
                    let result = call(&tp, &method, role, field.set(&baseline, &value)).await;
                    calls += 1;
                    if let Some(problem) = refusal_problem(&field, &result) {
                        problems.push(format!("{name}, {case}: {problem}"));
                    }
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
    // Not vacuous: every service's string fields were sent.
    assert!(checked_fields >= 60, "only {checked_fields} fields checked");
    println!("{checked_fields} string fields checked in {calls} calls");
    tp.stop().await;
}
