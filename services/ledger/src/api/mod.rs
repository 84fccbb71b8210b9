//! The gRPC adapter: `gamehub.ledger.v1.LedgerService` over the [`Repository`].
//!
//! Each RPC checks who may call it, parses the request into domain types once
//! ([`parse`]), runs it, and builds the answer ([`convert`]). Errors are [`LedgerError`]s
//! until the one conversion to a status at the trait boundary.

pub mod convert;
pub mod page;
pub mod parse;

use chrono::Utc;
use chrono_tz::Tz;
use gamehub_platform::Clock;
use gamehub_platform::auth::{Caller, Role, TOURNAMENTS_SUBJECT};
use gamehub_proto::ledger as pb;
use gamehub_proto::ledger::ledger_service_server::LedgerService;
use prost::Message;
use tonic::{Request, Response, Status};

use crate::domain::audit::Audit;
use crate::domain::caps::Caps;
use crate::domain::day::CapDay;
use crate::domain::{MAX_ID_LEN, PlayerId};
use crate::error::LedgerError;
use crate::repo::{Renamer, Repository, Settled};

/// The ledger's gRPC service.
#[derive(Debug, Clone)]
pub struct LedgerApi {
    repo: Repository,
    /// The caps every settlement and eligibility check applies.
    caps: Caps,
    /// The zone whose midnight ends a cap day.
    timezone: Tz,
    /// Where "now" comes from (the system clock, or a test's).
    clock: Clock,
}

/// Who a request is about: `requested`, or the caller itself when empty. Only a player
/// token may leave it empty.
fn target_player(caller: &Caller, requested: &str) -> Result<PlayerId, LedgerError> {
    if requested.trim().is_empty() && caller.role != Role::Player {
        return Err(LedgerError::invalid(
            "player_id",
            format!(
                "is required with a {} token (only a player token means itself)",
                caller.role.as_str()
            ),
        ));
    }
    PlayerId::parse("player_id", caller.player_or_self(requested))
}

/// Players may act only for themselves; the given roles for anyone.
fn ensure_reads(
    caller: &Caller,
    player: &PlayerId,
    others_allowed: &[Role],
    what: &str,
) -> Result<(), LedgerError> {
    match caller.role {
        Role::Player if caller.subject == player.as_str() => Ok(()),
        Role::Player => Err(LedgerError::Forbidden(format!(
            "a player token reads only its own {what} ({}), not {player}'s",
            caller.subject
        ))),
        role if others_allowed.contains(&role) => Ok(()),
        role => Err(LedgerError::Forbidden(format!(
            "a {} token cannot read a player's {what}",
            role.as_str()
        ))),
    }
}

/// Only the tournament service moves tournament money. The access table already lets
/// no other token through; this keeps the rule true should the table change.
fn ensure_tournament_service(caller: &Caller, what: &str) -> Result<(), LedgerError> {
    if caller.role == Role::Service && caller.subject == TOURNAMENTS_SUBJECT {
        Ok(())
    } else {
        Err(LedgerError::Forbidden(format!(
            "{what} is for the tournament service's token (subject {TOURNAMENTS_SUBJECT}); \
             this is a {} token of {}",
            caller.role.as_str(),
            caller.subject
        )))
    }
}

impl LedgerApi {
    /// The service over `repo`, telling the day by `clock` in `timezone`.
    pub fn new(repo: Repository, caps: Caps, timezone: Tz, clock: Clock) -> Self {
        Self {
            repo,
            caps,
            timezone,
            clock,
        }
    }

    /// Now, by the service's clock: the time of an audit row.
    fn now(&self) -> chrono::DateTime<Utc> {
        let now_ms = i64::try_from(self.clock.now_ms()).unwrap_or(i64::MAX);
        chrono::DateTime::<Utc>::from_timestamp_millis(now_ms).unwrap_or_else(Utc::now)
    }

    /// The cap day now, by the service's clock (a test moves it past midnight).
    fn today(&self) -> CapDay {
        let now_ms = i64::try_from(self.clock.now_ms()).unwrap_or(i64::MAX);
        let now = chrono::DateTime::<Utc>::from_timestamp_millis(now_ms).unwrap_or_else(Utc::now);
        CapDay::of(now, self.timezone)
    }

    async fn account(&self, player: &PlayerId) -> Result<pb::Account, LedgerError> {
        let day = self.today();
        let row = self.repo.account(player, day.date).await?;
        Ok(convert::account(&row, &day, &self.caps))
    }

    async fn get_account(
        &self,
        request: Request<pb::GetAccountRequest>,
    ) -> Result<pb::GetAccountResponse, LedgerError> {
        let caller = Caller::of(&request)?;
        let player = target_player(caller, &request.get_ref().player_id)?;
        ensure_reads(caller, &player, &[Role::Service, Role::Operator], "account")?;
        Ok(pb::GetAccountResponse {
            account: Some(self.account(&player).await?),
        })
    }

    async fn grant_silver(
        &self,
        request: Request<pb::GrantSilverRequest>,
    ) -> Result<pb::GrantSilverResponse, LedgerError> {
        let caller = Caller::of(&request)?;
        caller.require(&[Role::Operator], "granting silver")?;
        let grant = parse::grant_request(request.get_ref())?;
        let granted = self
            .repo
            .grant(&grant, &caller.subject, self.today().date, self.now())
            .await?;
        if !granted.replayed {
            tracing::info!(
                request_id = %grant.request_id,
                player_id = %grant.player_id,
                amount_silver = grant.amount_silver,
                operator = %caller.subject,
                "silver granted"
            );
        }
        Ok(pb::GrantSilverResponse {
            transfer_id: granted.transfer_id.to_string(),
            balance_silver: granted.balance_after_silver,
            replayed: granted.replayed,
        })
    }

    async fn settle_game(
        &self,
        request: Request<pb::SettleGameRequest>,
    ) -> Result<pb::SettleGameResponse, LedgerError> {
        let caller = Caller::of(&request)?;
        let report = parse::settle_request(request.get_ref())?;
        // The access table lets the game services settle; each settles its own game only.
        let game = report.game_type.game();
        if game.service.identity != caller.subject {
            return Err(LedgerError::Forbidden(format!(
                "{} settles only its own game's results; {} games are settled by {}",
                caller.subject, game.name, game.service.identity
            )));
        }
        let settled = self
            .repo
            .settle(&report, self.today().date, &self.caps, |plan| {
                convert::settlement(&report, plan).encode_to_vec()
            })
            .await?;
        let (bytes, replayed) = match settled {
            Settled::Applied { response, .. } => (response, false),
            Settled::Replayed { response } => (response, true),
        };
        let mut response = pb::SettleGameResponse::decode(bytes.as_slice())
            .map_err(|e| LedgerError::Corrupt(format!("stored settlement response: {e}")))?;
        response.replayed = replayed;
        Ok(response)
    }

    async fn check_eligibility(
        &self,
        request: Request<pb::CheckEligibilityRequest>,
    ) -> Result<pb::CheckEligibilityResponse, LedgerError> {
        let caller = Caller::of(&request)?;
        let player = target_player(caller, &request.get_ref().player_id)?;
        ensure_reads(
            caller,
            &player,
            &[Role::Service, Role::Operator],
            "eligibility",
        )?;
        let stakes = parse::stakes("stakes", request.get_ref().stakes.as_ref())?;
        let day = self.today();
        let row = self.repo.account(&player, day.date).await?;
        Ok(convert::eligibility(
            &row,
            &stakes,
            &day,
            &self.caps,
            self.timezone,
        ))
    }

    async fn list_history(
        &self,
        request: Request<pb::ListHistoryRequest>,
    ) -> Result<pb::ListHistoryResponse, LedgerError> {
        let caller = Caller::of(&request)?;
        let req = request.get_ref();
        let player = target_player(caller, &req.player_id)?;
        ensure_reads(caller, &player, &[Role::Operator], "history")?;
        let kind = parse::history_kind(req.kind)?;
        let size = parse::page_size(
            "page_size",
            req.page_size,
            parse::DEFAULT_PAGE_SIZE,
            parse::MAX_PAGE_SIZE,
        )?;
        let scope = format!("history:{player}:{}", kind.map_or(0, |k| k.code()));
        let before = page::decode("page_token", &req.page_token, &scope)?.unwrap_or(i64::MAX);
        let mut rows = self.repo.history(&player, kind, before, size + 1).await?;
        let next_page_token = if rows.len() > usize::try_from(size).unwrap_or(usize::MAX) {
            rows.truncate(usize::try_from(size).unwrap_or(0));
            rows.last()
                .map(|r| page::encode(&scope, r.history_id))
                .unwrap_or_default()
        } else {
            String::new()
        };
        Ok(pb::ListHistoryResponse {
            entries: rows.iter().map(convert::history_entry).collect(),
            next_page_token,
        })
    }

    async fn get_game_record(
        &self,
        request: Request<pb::GetGameRecordRequest>,
    ) -> Result<pb::GetGameRecordResponse, LedgerError> {
        let caller = Caller::of(&request)?;
        let game_id =
            gamehub_platform::error::id("game_id", &request.get_ref().game_id, MAX_ID_LEN)?;
        if caller.role == Role::Service {
            return Err(LedgerError::Forbidden(
                "game records are read by their players and operators, not services".into(),
            ));
        }
        let game = self.repo.game(game_id).await?.ok_or_else(|| {
            LedgerError::NotFound(format!("no settled game has the id {game_id}"))
        })?;
        if caller.role == Role::Player
            && !game.players.iter().any(|p| p.player_id == caller.subject)
        {
            return Err(LedgerError::Forbidden(format!(
                "game {game_id} is readable by its players and operators; {} did not play in it",
                caller.subject
            )));
        }
        Ok(pb::GetGameRecordResponse {
            game: Some(convert::finished_game(&game.game, &game.players)?),
            record: Some(pb::GameRecord {
                format: game.record_format,
                content: game.record_content,
            }),
        })
    }

    async fn list_games(
        &self,
        request: Request<pb::ListGamesRequest>,
    ) -> Result<pb::ListGamesResponse, LedgerError> {
        let caller = Caller::of(&request)?;
        let req = request.get_ref();
        let player = target_player(caller, &req.player_id)?;
        ensure_reads(caller, &player, &[Role::Operator], "games")?;
        let game_type = parse::game_type_filter("game_type", req.game_type)?;
        let size = parse::page_size(
            "page_size",
            req.page_size,
            parse::DEFAULT_PAGE_SIZE,
            parse::MAX_PAGE_SIZE,
        )?;
        let scope = format!("games:{player}:{}", game_type.map_or(0, |g| g.code()));
        let before = page::decode("page_token", &req.page_token, &scope)?.unwrap_or(i64::MAX);
        let mut rows = self
            .repo
            .games(&player, game_type, before, size + 1)
            .await?;
        let next_page_token = if rows.len() > usize::try_from(size).unwrap_or(usize::MAX) {
            rows.truncate(usize::try_from(size).unwrap_or(0));
            rows.last()
                .map(|(g, _)| page::encode(&scope, g.game_seq))
                .unwrap_or_default()
        } else {
            String::new()
        };
        let games = rows
            .iter()
            .map(|(game, players)| convert::finished_game(game, players))
            .collect::<Result<_, _>>()?;
        Ok(pb::ListGamesResponse {
            games,
            next_page_token,
        })
    }

    async fn get_leaderboard(
        &self,
        request: Request<pb::GetLeaderboardRequest>,
    ) -> Result<pb::GetLeaderboardResponse, LedgerError> {
        Caller::of(&request)?;
        let req = request.get_ref();
        let board = parse::board(req.board)?;
        let limit = parse::page_size(
            "limit",
            req.limit,
            parse::DEFAULT_BOARD_ROWS,
            parse::MAX_BOARD_ROWS,
        )?;
        let rows = if req.around_player_id.trim().is_empty() {
            self.repo.leaderboard_top(board, limit).await?
        } else {
            let player = PlayerId::parse("around_player_id", &req.around_player_id)?;
            self.repo
                .leaderboard_around(board, &player, limit)
                .await?
                .ok_or_else(|| {
                    LedgerError::NotFound(format!(
                        "player {player} is not on this board yet (no game of its kind played)"
                    ))
                })?
        };
        Ok(pb::GetLeaderboardResponse {
            rows: rows.iter().map(|r| convert::board_row(board, r)).collect(),
        })
    }

    async fn set_professional(
        &self,
        request: Request<pb::SetProfessionalRequest>,
    ) -> Result<pb::SetProfessionalResponse, LedgerError> {
        let caller = Caller::of(&request)?;
        caller.require(&[Role::Operator], "setting a professional dan")?;
        let req = request.get_ref();
        let player = PlayerId::parse("player_id", &req.player_id)?;
        let dan = parse::professional_dan(req.professional_dan)?;
        let audit = Audit {
            request_id: parse::request_id_or_fresh("request_id", &req.request_id)?,
            operator: caller.subject.clone(),
            reason: parse::reason("reason", &req.reason)?,
        };
        let (row, replayed) = self
            .repo
            .set_professional(&player, dan, &audit, self.now())
            .await?;
        if !replayed {
            tracing::info!(
                player_id = %player,
                professional_dan = dan,
                operator = %caller.subject,
                request_id = %row.request_id,
                "professional dan set"
            );
        }
        Ok(pb::SetProfessionalResponse {
            account: Some(self.account(&player).await?),
        })
    }

    async fn set_name(
        &self,
        request: Request<pb::SetNameRequest>,
    ) -> Result<pb::SetNameResponse, LedgerError> {
        let caller = Caller::of(&request)?;
        if caller.role == Role::Service {
            return Err(LedgerError::Forbidden(
                "a service token cannot set a player's name; players set their own, operators reset them"
                    .into(),
            ));
        }
        let req = request.get_ref();
        let player = target_player(caller, &req.player_id)?;
        let name = parse::display_name("name", &req.name)?;
        let reason = parse::optional_reason("reason", &req.reason)?;
        let request_id = parse::request_id_or_fresh("request_id", &req.request_id)?;
        let audit;
        let renamer = match caller.role {
            Role::Player if caller.subject == player.as_str() => Renamer::Player,
            Role::Player => {
                return Err(LedgerError::Forbidden(format!(
                    "a player token sets only its own name ({}), not {player}'s",
                    caller.subject
                )));
            }
            _ => {
                audit = Audit {
                    request_id,
                    operator: caller.subject.clone(),
                    reason: reason.ok_or_else(|| {
                        LedgerError::invalid(
                            "reason",
                            "is required when an operator sets or clears a player's name (kept in the audit trail)",
                        )
                    })?,
                };
                Renamer::Operator(&audit, self.now())
            }
        };
        let before = self
            .repo
            .set_name(&player, name.as_ref(), renamer, &caller.subject)
            .await?;
        if let Renamer::Operator(audit, _) = renamer {
            // Debug formatting: a name is the player's text, quoted and escaped here.
            tracing::info!(
                player_id = %player,
                operator = %audit.operator,
                request_id = %audit.request_id,
                old = ?before,
                new = ?name.as_ref().map(|n| n.as_str()),
                "name set by an operator"
            );
        }
        Ok(pb::SetNameResponse {
            player_id: player.to_string(),
            name: name.map(|n| n.into_string()).unwrap_or_default(),
        })
    }

    async fn list_operator_actions(
        &self,
        request: Request<pb::ListOperatorActionsRequest>,
    ) -> Result<pb::ListOperatorActionsResponse, LedgerError> {
        let caller = Caller::of(&request)?;
        caller.require(&[Role::Operator], "listing operator actions")?;
        let req = request.get_ref();
        let filter = parse::action_filter(req)?;
        let size = parse::page_size(
            "page_size",
            req.page_size,
            parse::DEFAULT_PAGE_SIZE,
            parse::MAX_PAGE_SIZE,
        )?;
        // Ids cannot hold ',': the scope names each filter unambiguously.
        let scope = format!(
            "audit,{},{},{},{},{}",
            filter.operator.as_deref().unwrap_or(""),
            filter.target.as_deref().unwrap_or(""),
            filter.kind.map_or(0, |k| k.code()),
            req.since_unix_ms,
            req.until_unix_ms
        );
        let before = page::decode("page_token", &req.page_token, &scope)?.unwrap_or(i64::MAX);
        let mut rows = self
            .repo
            .operator_actions(&filter, before, size + 1)
            .await?;
        let next_page_token = if rows.len() > usize::try_from(size).unwrap_or(usize::MAX) {
            rows.truncate(usize::try_from(size).unwrap_or(0));
            rows.last()
                .map(|r| page::encode(&scope, r.action_id))
                .unwrap_or_default()
        } else {
            String::new()
        };
        Ok(pb::ListOperatorActionsResponse {
            actions: rows
                .iter()
                .map(convert::operator_action)
                .collect::<Result<_, _>>()?,
            next_page_token,
        })
    }

    async fn record_operator_action(
        &self,
        request: Request<pb::RecordOperatorActionRequest>,
    ) -> Result<pb::RecordOperatorActionResponse, LedgerError> {
        let caller = Caller::of(&request)?;
        caller.require(&[Role::Service], "recording an operator action")?;
        let (audit, action) = parse::record_request(request.get_ref())?;
        let (row, replayed) = self
            .repo
            .record_operator_action(&audit, &action, &caller.subject, self.now())
            .await?;
        if !replayed {
            tracing::info!(
                request_id = %audit.request_id,
                operator = %audit.operator,
                recorded_by = %caller.subject,
                kind = action.kind().to_proto().as_str_name(),
                "operator action recorded"
            );
        }
        Ok(pb::RecordOperatorActionResponse {
            action: Some(convert::operator_action(&row)?),
            replayed,
        })
    }

    async fn hold_entry_fee(
        &self,
        request: Request<pb::HoldEntryFeeRequest>,
    ) -> Result<pb::HoldEntryFeeResponse, LedgerError> {
        let caller = Caller::of(&request)?;
        ensure_tournament_service(caller, "holding an entry fee")?;
        let fee = parse::hold_request(request.get_ref())?;
        let answer = self
            .repo
            .move_entry_fee(&fee, self.today().date, |moved| {
                convert::entry_fee_held(moved).encode_to_vec()
            })
            .await?;
        let mut response: pb::HoldEntryFeeResponse =
            convert::stored_answer(&answer.response, "entry fee")?;
        if !answer.replayed {
            tracing::info!(
                request_id = %fee.request_id,
                tournament_id = %fee.tournament_id,
                player_id = %fee.player_id,
                amount_silver = fee.amount_silver,
                pool_silver = response.pool_silver,
                "entry fee held"
            );
        }
        response.replayed = answer.replayed;
        Ok(response)
    }

    async fn refund_entry_fee(
        &self,
        request: Request<pb::RefundEntryFeeRequest>,
    ) -> Result<pb::RefundEntryFeeResponse, LedgerError> {
        let caller = Caller::of(&request)?;
        ensure_tournament_service(caller, "refunding an entry fee")?;
        let refund = parse::refund_request(request.get_ref())?;
        let answer = self
            .repo
            .move_entry_fee(&refund, self.today().date, |moved| {
                convert::entry_fee_refunded(moved).encode_to_vec()
            })
            .await?;
        let mut response: pb::RefundEntryFeeResponse =
            convert::stored_answer(&answer.response, "refund")?;
        if !answer.replayed {
            tracing::info!(
                request_id = %refund.request_id,
                tournament_id = %refund.tournament_id,
                player_id = %refund.player_id,
                amount_silver = refund.amount_silver,
                pool_silver = response.pool_silver,
                "entry fee refunded"
            );
        }
        response.replayed = answer.replayed;
        Ok(response)
    }

    async fn pay_prizes(
        &self,
        request: Request<pb::PayPrizesRequest>,
    ) -> Result<pb::PayPrizesResponse, LedgerError> {
        let caller = Caller::of(&request)?;
        ensure_tournament_service(caller, "paying prizes")?;
        let prizes = parse::prizes_request(request.get_ref())?;
        let answer = self
            .repo
            .pay_prizes(&prizes, self.today().date, |paid| {
                convert::prizes_paid(paid).encode_to_vec()
            })
            .await?;
        let mut response: pb::PayPrizesResponse =
            convert::stored_answer(&answer.response, "prizes")?;
        if !answer.replayed {
            tracing::info!(
                request_id = %prizes.request_id,
                tournament_id = %prizes.tournament_id,
                prizes = prizes.prizes.len(),
                total_silver = prizes.total_silver(),
                "prizes paid"
            );
        }
        response.replayed = answer.replayed;
        Ok(response)
    }

    async fn get_profiles(
        &self,
        request: Request<pb::GetProfilesRequest>,
    ) -> Result<pb::GetProfilesResponse, LedgerError> {
        Caller::of(&request)?;
        let req = request.get_ref();
        let players = parse::profile_ids("player_ids", &req.player_ids)?;
        let game_type = parse::game_type_filter("game_type", req.game_type)?;
        let rows = self.repo.profiles(&players, game_type).await?;
        let profiles = players
            .iter()
            .map(|player| {
                let row = rows
                    .iter()
                    .find(|r| r.player_id == player.as_str())
                    .ok_or_else(|| LedgerError::Corrupt(format!("no profile row for {player}")))?;
                Ok(pb::NamedProfile {
                    player_id: player.to_string(),
                    profile: Some(convert::profile(row, game_type)),
                })
            })
            .collect::<Result<_, LedgerError>>()?;
        Ok(pb::GetProfilesResponse { profiles })
    }
}

/// Turns a handler's result into the RPC's.
fn respond<T>(result: Result<T, LedgerError>) -> Result<Response<T>, Status> {
    result.map(Response::new).map_err(Status::from)
}

#[tonic::async_trait]
impl LedgerService for LedgerApi {
    async fn get_account(
        &self,
        request: Request<pb::GetAccountRequest>,
    ) -> Result<Response<pb::GetAccountResponse>, Status> {
        respond(LedgerApi::get_account(self, request).await)
    }

    async fn grant_silver(
        &self,
        request: Request<pb::GrantSilverRequest>,
    ) -> Result<Response<pb::GrantSilverResponse>, Status> {
        respond(LedgerApi::grant_silver(self, request).await)
    }

    async fn settle_game(
        &self,
        request: Request<pb::SettleGameRequest>,
    ) -> Result<Response<pb::SettleGameResponse>, Status> {
        respond(LedgerApi::settle_game(self, request).await)
    }

    async fn check_eligibility(
        &self,
        request: Request<pb::CheckEligibilityRequest>,
    ) -> Result<Response<pb::CheckEligibilityResponse>, Status> {
        respond(LedgerApi::check_eligibility(self, request).await)
    }

    async fn list_history(
        &self,
        request: Request<pb::ListHistoryRequest>,
    ) -> Result<Response<pb::ListHistoryResponse>, Status> {
        respond(LedgerApi::list_history(self, request).await)
    }

    async fn get_game_record(
        &self,
        request: Request<pb::GetGameRecordRequest>,
    ) -> Result<Response<pb::GetGameRecordResponse>, Status> {
        respond(LedgerApi::get_game_record(self, request).await)
    }

    async fn list_games(
        &self,
        request: Request<pb::ListGamesRequest>,
    ) -> Result<Response<pb::ListGamesResponse>, Status> {
        respond(LedgerApi::list_games(self, request).await)
    }

    async fn get_leaderboard(
        &self,
        request: Request<pb::GetLeaderboardRequest>,
    ) -> Result<Response<pb::GetLeaderboardResponse>, Status> {
        respond(LedgerApi::get_leaderboard(self, request).await)
    }

    async fn set_professional(
        &self,
        request: Request<pb::SetProfessionalRequest>,
    ) -> Result<Response<pb::SetProfessionalResponse>, Status> {
        respond(LedgerApi::set_professional(self, request).await)
    }

    async fn set_name(
        &self,
        request: Request<pb::SetNameRequest>,
    ) -> Result<Response<pb::SetNameResponse>, Status> {
        respond(LedgerApi::set_name(self, request).await)
    }

    async fn get_profiles(
        &self,
        request: Request<pb::GetProfilesRequest>,
    ) -> Result<Response<pb::GetProfilesResponse>, Status> {
        respond(LedgerApi::get_profiles(self, request).await)
    }

    async fn list_operator_actions(
        &self,
        request: Request<pb::ListOperatorActionsRequest>,
    ) -> Result<Response<pb::ListOperatorActionsResponse>, Status> {
        respond(LedgerApi::list_operator_actions(self, request).await)
    }

    async fn record_operator_action(
        &self,
        request: Request<pb::RecordOperatorActionRequest>,
    ) -> Result<Response<pb::RecordOperatorActionResponse>, Status> {
        respond(LedgerApi::record_operator_action(self, request).await)
    }

    async fn hold_entry_fee(
        &self,
        request: Request<pb::HoldEntryFeeRequest>,
    ) -> Result<Response<pb::HoldEntryFeeResponse>, Status> {
        respond(LedgerApi::hold_entry_fee(self, request).await)
    }

    async fn refund_entry_fee(
        &self,
        request: Request<pb::RefundEntryFeeRequest>,
    ) -> Result<Response<pb::RefundEntryFeeResponse>, Status> {
        respond(LedgerApi::refund_entry_fee(self, request).await)
    }

    async fn pay_prizes(
        &self,
        request: Request<pb::PayPrizesRequest>,
    ) -> Result<Response<pb::PayPrizesResponse>, Status> {
        respond(LedgerApi::pay_prizes(self, request).await)
    }
}
