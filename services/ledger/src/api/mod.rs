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
use gamehub_platform::auth::{Caller, Role};
use gamehub_proto::ledger as pb;
use gamehub_proto::ledger::ledger_service_server::LedgerService;
use prost::Message;
use tonic::{Request, Response, Status};

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
            .grant(&grant, &caller.subject, self.today().date)
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
        self.repo
            .set_professional(&player, dan, &caller.subject)
            .await?;
        tracing::info!(player_id = %player, professional_dan = dan, operator = %caller.subject, "professional dan set");
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
        let renamer = match caller.role {
            Role::Player if caller.subject == player.as_str() => Renamer::Player,
            Role::Player => {
                return Err(LedgerError::Forbidden(format!(
                    "a player token sets only its own name ({}), not {player}'s",
                    caller.subject
                )));
            }
            _ => Renamer::Operator(&caller.subject),
        };
        let before = self
            .repo
            .set_name(&player, name.as_ref(), renamer, &caller.subject)
            .await?;
        if let Renamer::Operator(operator) = renamer {
            // Debug formatting: a name is the player's text, quoted and escaped here.
            tracing::info!(
                player_id = %player,
                operator = %operator,
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
}
