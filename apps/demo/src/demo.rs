//! `gamehub demo`: one Gomoku game and one Dou Dizhu deal played by built-in bots
//! through the public gRPC API, from matchmaking to settlement, printing the board and
//! the tricks as they happen and the ledger's balances, points and titles at the end.

use std::time::Duration;

use gamehub_drive as drive;
use gamehub_drive::api::{Clients, Endpoints, request_id};
use gamehub_platform::auth::Role;
use gamehub_platform::client::TokenSource;
use gamehub_platform::config::CommonConfig;
use gamehub_proto::common::GameType;
use gamehub_proto::doudizhu as ddz;
use gamehub_proto::gomoku as gm;
use gamehub_proto::ledger as lg;
use gamehub_proto::matchmaking as mm;

use crate::print::{print_doudizhu, print_gomoku};

/// What the demo plays.
#[derive(Debug, Clone)]
pub struct DemoOptions {
    /// The Gomoku room.
    pub gomoku_room: String,
    /// The Dou Dizhu room.
    pub doudizhu_room: String,
    /// A pause before each bot action, so a person can follow.
    pub think: Duration,
    /// Print every board and trick (off: only the summary).
    pub verbose: bool,
}

impl Default for DemoOptions {
    fn default() -> Self {
        Self {
            gomoku_room: "gomoku-renju".into(),
            doudizhu_room: "doudizhu-classic".into(),
            think: Duration::from_millis(150),
            verbose: true,
        }
    }
}

/// What the demo saw, for tests.
#[derive(Debug, Clone, Default)]
pub struct DemoReport {
    /// The Gomoku players (seat 0 first) and the table.
    pub gomoku_players: Vec<String>,
    /// The Gomoku game's result.
    pub gomoku_result: Option<gm::GameResult>,
    /// The Gomoku settlement as the table announced it.
    pub gomoku_settlement: Option<gm::GameSettled>,
    /// The Dou Dizhu players (seat 0 first).
    pub doudizhu_players: Vec<String>,
    /// The deal's result.
    pub doudizhu_result: Option<ddz::DealResult>,
    /// Whether the revealed seed reproduced the dealt hands and the commitment.
    pub shuffle_verified: bool,
    /// Every demo player's account at the end.
    pub accounts: Vec<lg::Account>,
}

/// One run of the demo: where the platform is, how to play, as whom.
struct Demo<'a> {
    endpoints: &'a Endpoints,
    config: &'a CommonConfig,
    options: &'a DemoOptions,
    /// The operator: grants silver and reads the accounts.
    operator: Clients,
    gomoku_room: mm::Room,
    doudizhu_room: mm::Room,
}

/// Runs the demo against the platform at `endpoints`. Tokens are minted with the
/// configured (development) key; each run uses fresh player names.
pub async fn run(
    endpoints: &Endpoints,
    config: &CommonConfig,
    options: &DemoOptions,
) -> anyhow::Result<DemoReport> {
    let mut demo = Demo::open(endpoints, config, options).await?;
    let run = &uuid::Uuid::new_v4().simple().to_string()[..6];
    let players =
        |names: &[&str]| -> Vec<String> { names.iter().map(|n| format!("{n}-{run}")).collect() };
    let gomoku_players = players(&["alice", "bob"]);
    let doudizhu_players = players(&["carol", "dave", "erin"]);
    demo.grant_silver(&gomoku_players, &doudizhu_players)
        .await?;
    let (gomoku_result, gomoku_settlement) = demo.play_gomoku(&gomoku_players).await?;
    let (doudizhu_result, shuffle_verified) = demo.play_doudizhu(&doudizhu_players).await?;
    let accounts = demo.show_ledger(&gomoku_players, &doudizhu_players).await?;
    Ok(DemoReport {
        gomoku_players,
        gomoku_result,
        gomoku_settlement,
        doudizhu_players,
        doudizhu_result,
        shuffle_verified,
        accounts,
    })
}

impl Demo<'_> {
    /// Connects as the operator and finds the two rooms.
    async fn open<'a>(
        endpoints: &'a Endpoints,
        config: &'a CommonConfig,
        options: &'a DemoOptions,
    ) -> anyhow::Result<Demo<'a>> {
        let token = mint(config, "demo-operator", Role::Operator)?;
        let mut operator = Clients::new(endpoints, token)?;
        let rooms = operator
            .matchmaking
            .list_rooms(mm::ListRoomsRequest {})
            .await?
            .into_inner()
            .rooms;
        let room = |id: &str| -> anyhow::Result<mm::Room> {
            rooms
                .iter()
                .find(|r| r.room_id == id)
                .cloned()
                .ok_or_else(|| anyhow::anyhow!("no room {id}; `gamehub serve` lists the rooms"))
        };
        Ok(Demo {
            endpoints,
            config,
            options,
            gomoku_room: room(&options.gomoku_room)?,
            doudizhu_room: room(&options.doudizhu_room)?,
            operator,
        })
    }

    /// Prints `text` unless the demo runs quietly.
    fn say(&self, text: impl AsRef<str>) {
        if self.options.verbose {
            println!("{}", text.as_ref());
        }
    }

    /// Clients of every service as `player`.
    fn player(&self, player: &str) -> anyhow::Result<Clients> {
        Clients::new(self.endpoints, mint(self.config, player, Role::Player)?)
    }

    /// Silver only enters through an operator's grant: gives every player enough to sit
    /// in its room.
    async fn grant_silver(
        &mut self,
        gomoku_players: &[String],
        doudizhu_players: &[String],
    ) -> anyhow::Result<()> {
        for (players, room) in [
            (gomoku_players, self.gomoku_room.clone()),
            (doudizhu_players, self.doudizhu_room.clone()),
        ] {
            let stakes = room.stakes.unwrap_or_default();
            let amount = stakes.min_balance_silver.max(1000) * 2;
            for player in players {
                self.operator
                    .ledger
                    .grant_silver(lg::GrantSilverRequest {
                        request_id: request_id(),
                        player_id: player.clone(),
                        amount_silver: amount,
                        reason: "demo: welcome grant".into(),
                    })
                    .await?;
            }
            self.say(format!(
                "granted {amount} silver each to {}",
                players.join(", ")
            ));
        }
        Ok(())
    }

    /// One Gomoku game, the first player's view printed move by move; its result and
    /// settlement.
    async fn play_gomoku(
        &self,
        players: &[String],
    ) -> anyhow::Result<(Option<gm::GameResult>, Option<gm::GameSettled>)> {
        let room = &self.gomoku_room;
        self.say(format!(
            "\n== Gomoku in room {} ({})",
            room.room_id, room.display_name
        ));
        let mut tasks = Vec::new();
        for (i, player) in players.iter().enumerate() {
            let mut clients = self.player(player)?;
            let room_id = room.room_id.clone();
            let player = player.clone();
            let think = self.options.think;
            let print = self.options.verbose && i == 0;
            tasks.push(tokio::spawn(async move {
                let seat = drive::matchmaking::seat(&mut clients.matchmaking, &room_id, "", |t| {
                    if print && t.state() == mm::TicketState::Waiting {
                        println!(
                            "{} waits in {} (position {})",
                            t.player_id, t.room_id, t.position
                        );
                    }
                })
                .await?;
                if print {
                    println!(
                        "seated at Gomoku table {} (seat {})",
                        seat.table_id, seat.seat
                    );
                }
                let mut board = gm::Game::default();
                let options = drive::gomoku::Options {
                    games: 1,
                    think,
                    seed: u64::from(player.len() as u32) ^ 0x5eed,
                };
                drive::gomoku::play(clients.gomoku.clone(), &seat.table_id, options, |update| {
                    if print {
                        print_gomoku(&mut board, update);
                    }
                })
                .await
            }));
        }
        let (mut result, mut settlement) = (None, None);
        for task in tasks {
            let outcome = task.await??;
            if result.is_none() {
                result = outcome.results.first().cloned();
                settlement = outcome.settlements.first().cloned();
            }
        }
        if let Some(result) = &result {
            self.say(format!("result: {}", result.description));
        }
        if let Some(settled) = &settlement {
            for seat in settled.settlement.iter().flat_map(|s| s.seats.iter()) {
                self.say(format!(
                    "  {:<14} points {:+}, silver {:+}",
                    seat.player_id, seat.points_delta, seat.silver_delta
                ));
            }
        }
        Ok((result, settlement))
    }

    /// One Dou Dizhu deal, the first seat's table printed trick by trick; its result, and
    /// whether the revealed seed reproduces the hands and the commitment.
    async fn play_doudizhu(
        &self,
        players: &[String],
    ) -> anyhow::Result<(Option<ddz::DealResult>, bool)> {
        let room = &self.doudizhu_room;
        self.say(format!(
            "\n== Dou Dizhu in room {} ({})",
            room.room_id, room.display_name
        ));
        let verbose = self.options.verbose;
        let mut tasks = Vec::new();
        for (i, player) in players.iter().enumerate() {
            let mut clients = self.player(player)?;
            let room_id = room.room_id.clone();
            let think = self.options.think;
            let names = players.to_vec();
            let me = player.clone();
            tasks.push(tokio::spawn(async move {
                let seat = drive::matchmaking::seat(&mut clients.matchmaking, &room_id, "", |_| {})
                    .await?;
                let print_table = verbose && i == 0;
                let mut names_by_seat = seat.players.clone();
                if names_by_seat.is_empty() {
                    names_by_seat = names;
                }
                let outcome = drive::doudizhu::play(
                    clients.doudizhu.clone(),
                    &seat.table_id,
                    drive::doudizhu::Options { deals: 1, think },
                    |update| print_doudizhu(verbose, print_table, &me, &names_by_seat, update),
                )
                .await?;
                Ok::<_, anyhow::Error>((seat, outcome, clients))
            }));
        }
        let mut result = None;
        let mut first_seat = None;
        for task in tasks {
            let (seat, outcome, clients) = task.await??;
            if result.is_none() {
                result = outcome.results.first().cloned();
                first_seat = Some((seat, clients));
            }
        }
        let verified = match first_seat {
            Some((seat, mut clients)) => self.verify_shuffle(&mut clients, &seat).await?,
            None => false,
        };
        Ok((result, verified))
    }

    /// Anyone can check the shuffle once the deal is over: the deal's record, checked by
    /// the rules crate's verifier.
    async fn verify_shuffle(&self, clients: &mut Clients, seat: &mm::Seat) -> anyhow::Result<bool> {
        let record = clients
            .doudizhu
            .get_deal_record(ddz::GetDealRecordRequest {
                table_id: seat.table_id.clone(),
                deal_number: 1,
            })
            .await?
            .into_inner()
            .record
            .unwrap_or_default();
        let verified = doudizhu_rules::verify_published(
            &record.seed,
            &record.commitment,
            &record.deal_id,
            record.hands.iter().map(|h| h.cards.as_slice()),
            &record.kitty,
        )
        .is_ok();
        self.say(format!(
            "deal seed {} {} the commitment {}",
            record.seed,
            if verified {
                "reproduces the hands and"
            } else {
                "DOES NOT match"
            },
            record.commitment
        ));
        Ok(verified)
    }

    /// Every player's account afterwards: silver, points and titles per game, rating.
    async fn show_ledger(
        &mut self,
        gomoku_players: &[String],
        doudizhu_players: &[String],
    ) -> anyhow::Result<Vec<lg::Account>> {
        self.say("\n== The ledger");
        let mut accounts = Vec::new();
        for player in gomoku_players.iter().chain(doudizhu_players) {
            let account = self
                .operator
                .ledger
                .get_account(lg::GetAccountRequest {
                    player_id: player.clone(),
                })
                .await?
                .into_inner()
                .account
                .unwrap_or_default();
            self.say(account_line(&account));
            accounts.push(account);
        }
        Ok(accounts)
    }
}

/// A development token for `subject` in `role`, valid for an hour.
fn mint(config: &CommonConfig, subject: &str, role: Role) -> anyhow::Result<TokenSource> {
    let ttl = Duration::from_secs(3600);
    Ok(TokenSource::Static(gamehub_drive::token::mint(
        config, subject, role, ttl,
    )?))
}

/// An account as one line: silver, each game played (points, title, counts), rating.
fn account_line(account: &lg::Account) -> String {
    let standings: Vec<String> = account
        .standings
        .iter()
        .filter(|s| s.games > 0)
        .map(|s| {
            let game = if s.game_type() == GameType::Gomoku {
                "gomoku"
            } else {
                "doudizhu"
            };
            let title = s.title.as_ref().map(|t| t.name.as_str()).unwrap_or("");
            format!(
                "{game} {} points ({title}), W{} L{} D{} E{}",
                s.points, s.wins, s.losses, s.draws, s.escapes
            )
        })
        .collect();
    let rating = account
        .gomoku_rating
        .as_ref()
        .map(|r| format!(", rating {} ({})", r.rating, r.rank_name))
        .unwrap_or_default();
    format!(
        "  {:<14} {:>8} silver; {}{rating}",
        account.player_id,
        account.balance_silver,
        standings.join("; ")
    )
}
