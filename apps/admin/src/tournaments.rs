//! Tournaments (比赛): `tournament create`, `list`, `show`, `cancel`
//! (TournamentService). Each subcommand answers with the lines to print, so its whole
//! path — flags, request, the server's answer, the text — runs the same in a test.

use clap::{Args, Subcommand, ValueEnum};
use gamehub_platform::client::ServiceChannel;
use gamehub_proto::common::GameType;
use gamehub_proto::tournament as tn;
use gamehub_proto::tournament::tournament_service_client::TournamentServiceClient;
use gamehub_render::tournament::{
    count, format_of, format_word, game_word, ordinal, prize_table, score, starts_text, state_of,
    state_word,
};
use gamehub_render::{signed, thousands};

use crate::status;
use crate::text::{now_ms, when};

/// The tournament service, called with the operator's token.
pub type TournamentClient = TournamentServiceClient<ServiceChannel>;

/// The most tournaments one page asks for (the API's limit).
const PAGE_SIZE: i32 = 100;

/// `gamehub admin tournament …`.
#[derive(Subcommand, Debug)]
pub enum TournamentCommand {
    /// Create a tournament (TournamentService.CreateTournament). Idempotent by
    /// --request-id: a retry answers the same tournament. The server checks every
    /// setting and names the one out of bounds.
    Create(CreateArgs),
    /// Tournaments, newest first (TournamentService.ListTournaments): id, state, game,
    /// room, round, players, fee, pool, start, name.
    List {
        /// Only tournaments in this state.
        #[arg(long, value_enum)]
        state: Option<StateArg>,
        /// Only tournaments of this game.
        #[arg(long, value_enum)]
        game: Option<GameArg>,
        /// How many at most (1-1000).
        #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(i32).range(1..=1000))]
        limit: i32,
    },
    /// One tournament whole (TournamentService.GetTournament): settings, players,
    /// rounds with their tables and results, standings, prizes.
    Show {
        /// The tournament's id (tn-…).
        tournament: String,
    },
    /// Cancel a tournament that has not finished (TournamentService.CancelTournament):
    /// every entry fee is refunded in full, no prize is paid; games being played finish
    /// at their tables but count for nothing.
    Cancel {
        /// The tournament's id (tn-…).
        tournament: String,
        /// Why, shown to the players (at most 200 characters).
        #[arg(long)]
        reason: String,
    },
}

/// The games, as the command line names them.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum GameArg {
    /// Gomoku / Renju (Swiss).
    Gomoku,
    /// Dou Dizhu (elimination rounds).
    Doudizhu,
}

impl GameArg {
    fn to_proto(self) -> GameType {
        match self {
            GameArg::Gomoku => GameType::Gomoku,
            GameArg::Doudizhu => GameType::Doudizhu,
        }
    }

    /// The fewest players a tournament of the game can start with.
    fn fewest_players(self) -> i32 {
        match self {
            GameArg::Gomoku => 2,
            GameArg::Doudizhu => 3,
        }
    }
}

/// Formats, as the command line names them.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormatArg {
    /// Swiss (瑞士制), Gomoku only.
    Swiss,
    /// Elimination rounds (打立出局), Dou Dizhu only.
    Elimination,
}

/// States, as the command line names them.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateArg {
    /// Open for registration.
    Registering,
    /// Being played.
    Running,
    /// Over, prizes paid.
    Finished,
    /// Cancelled, fees refunded.
    Cancelled,
}

impl StateArg {
    fn to_proto(self) -> tn::State {
        match self {
            StateArg::Registering => tn::State::Registering,
            StateArg::Running => tn::State::Running,
            StateArg::Finished => tn::State::Finished,
            StateArg::Cancelled => tn::State::Cancelled,
        }
    }
}

/// `gamehub admin tournament create`: every field of `TournamentSettings`.
#[derive(Args, Debug, Clone)]
pub struct CreateArgs {
    /// What players see, e.g. "周末五子棋公开赛" (at most 64 characters).
    #[arg(long)]
    pub name: String,
    /// The game; it must be the room's.
    #[arg(long, value_enum)]
    pub game: GameArg,
    /// The room whose rule set, clock and points base the games use (`gamehub play
    /// rooms` lists them).
    #[arg(long)]
    pub room: String,
    /// How players meet [default: the game's: Swiss for Gomoku, elimination for Dou
    /// Dizhu].
    #[arg(long, value_enum)]
    pub format: Option<FormatArg>,
    /// Silver each player pays into the pool at registration (0 = free, at most
    /// 1,000,000,000).
    #[arg(long, default_value_t = 0)]
    pub entry_fee: i64,
    /// The fewest players it starts with; fewer at the start time cancel it with the
    /// fees refunded [default: 2 for Gomoku, 3 for Dou Dizhu].
    #[arg(long)]
    pub min_players: Option<i32>,
    /// The most players it takes (at most 1024; Dou Dizhu: a multiple of 3).
    #[arg(long)]
    pub max_players: i32,
    /// When it starts: an RFC 3339 time (2026-12-05T20:00:00+08:00), or `when-full` to
    /// start it the moment it is full (sit-and-go).
    #[arg(long, default_value = "when-full", value_parser = parse_starts_at)]
    pub starts_at: i64,
    /// Swiss: the number of rounds, 1-64 [default: ⌈log2 players⌉ + 1, fixed at the
    /// start].
    #[arg(long, default_value_t = 0, hide_default_value = true)]
    pub rounds: i32,
    /// Elimination: the deals each table plays per round, 1-12 [default: 3].
    #[arg(long, default_value_t = 0, hide_default_value = true)]
    pub deals_per_round: i32,
    /// Elimination: the tournament chips each player starts with, 1-1,000,000
    /// [default: 1,000].
    #[arg(long, default_value_t = 0, hide_default_value = true)]
    pub starting_chips: i64,
    /// The prize table: percentages of the pool for first, second, … place, e.g.
    /// `50,30,20` or `62.5,37.5` (to 1/100 of a percent), not rising with the place,
    /// summing to 100 [default: the winner takes the pool].
    #[arg(long, value_parser = parse_prizes, default_value = "", hide_default_value = true)]
    pub prizes: Prizes,
    /// The games move no rating (段位), even in a rated room.
    #[arg(long)]
    pub unrated: bool,
    /// The creation's id; repeating it answers the same tournament. Default: a fresh
    /// id, printed so a retry can reuse it.
    #[arg(long)]
    pub request_id: Option<String>,
}

impl CreateArgs {
    /// The settings the flags say.
    pub fn settings(&self) -> tn::TournamentSettings {
        tn::TournamentSettings {
            name: self.name.clone(),
            game_type: self.game.to_proto() as i32,
            room_id: self.room.clone(),
            format: self.format.map_or(tn::Format::Unspecified, |f| match f {
                FormatArg::Swiss => tn::Format::Swiss,
                FormatArg::Elimination => tn::Format::Elimination,
            }) as i32,
            entry_fee_silver: self.entry_fee,
            min_players: self
                .min_players
                .unwrap_or_else(|| self.game.fewest_players()),
            max_players: self.max_players,
            starts_at_unix_ms: self.starts_at,
            rounds: self.rounds,
            deals_per_round: self.deals_per_round,
            starting_chips: self.starting_chips,
            prize_shares_bp: self.prizes.0.clone(),
            unrated: self.unrated,
        }
    }
}

/// A prize table in basis points (1/100 of a percent), first place first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prizes(pub Vec<i32>);

/// `--prizes`: percentages separated by commas (`50,30,20`, `62.5, 37.5`, `50%,50%`),
/// each above 0 and at most 100 with at most two decimals, as basis points; empty for
/// none. Whether they fall with the place and sum to 100 is the server's to judge (its
/// refusal names `prize_shares_bp`).
pub fn parse_prizes(text: &str) -> Result<Prizes, String> {
    if text.trim().is_empty() {
        return Ok(Prizes::default());
    }
    text.split(',')
        .map(|share| percent_to_bp(share.trim()).map_err(|e| format!("{:?}: {e}", share.trim())))
        .collect::<Result<Vec<_>, _>>()
        .map(Prizes)
}

/// One percentage (`12.5`, `12.5%`) as basis points (1250), exactly: no floating point.
fn percent_to_bp(text: &str) -> Result<i32, String> {
    let number = text.strip_suffix('%').unwrap_or(text).trim();
    let (whole, fraction) = match number.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (number, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || !fraction.is_none_or(digits) {
        return Err("a percentage such as 50 or 12.5".into());
    }
    let fraction = fraction.unwrap_or_default();
    if fraction.len() > 2 {
        return Err("at most two decimals (shares are basis points, 1/100 of a percent)".into());
    }
    if whole.len() > 3 {
        return Err("a share is at most 100%".into());
    }
    let whole: i32 = whole.parse().map_err(|_| "a percentage such as 50")?;
    let hundredths: i32 = format!("{fraction:0<2}")
        .parse()
        .map_err(|_| "a percentage such as 12.5")?;
    let bp = whole * 100 + hundredths;
    match bp {
        0 => Err("every share is more than 0".into()),
        bp if bp > 10_000 => Err("a share is at most 100%".into()),
        bp => Ok(bp),
    }
}

/// `--starts-at`: `when-full` (0: sit-and-go) or an RFC 3339 time, as Unix ms.
pub fn parse_starts_at(text: &str) -> Result<i64, String> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("when-full") {
        return Ok(0);
    }
    chrono::DateTime::parse_from_rfc3339(text)
        .map(|at| at.timestamp_millis())
        .map_err(|_| {
            "an RFC 3339 time (2026-12-05T20:00:00Z, 2026-12-05T20:00:00+08:00) or when-full".into()
        })
}

/// Runs a tournament subcommand; the lines to print.
pub async fn run(
    client: &mut TournamentClient,
    command: TournamentCommand,
) -> anyhow::Result<Vec<String>> {
    match command {
        TournamentCommand::Create(args) => create(client, &args).await,
        TournamentCommand::List { state, game, limit } => list(client, state, game, limit).await,
        TournamentCommand::Show { tournament } => show(client, &tournament).await,
        TournamentCommand::Cancel { tournament, reason } => {
            cancel(client, &tournament, &reason).await
        }
    }
}

/// `create`: the tournament under `--request-id` or a fresh one.
async fn create(client: &mut TournamentClient, args: &CreateArgs) -> anyhow::Result<Vec<String>> {
    let id = args
        .request_id
        .clone()
        .unwrap_or_else(gamehub_drive::api::request_id);
    let created = client
        .create_tournament(tn::CreateTournamentRequest {
            request_id: id.clone(),
            settings: Some(args.settings()),
        })
        .await
        .map_err(status)?
        .into_inner();
    let t = created.tournament.unwrap_or_default();
    let mut out = vec![if created.replayed {
        format!(
            "tournament {} was already created by request id {id} (nothing new)",
            t.tournament_id
        )
    } else {
        format!("created tournament {} (request id {id})", t.tournament_id)
    }];
    out.extend(tournament_lines(&t, now_ms()));
    Ok(out)
}

/// `list`: at most `limit` tournaments matching the filters, newest first.
async fn list(
    client: &mut TournamentClient,
    state: Option<StateArg>,
    game: Option<GameArg>,
    limit: i32,
) -> anyhow::Result<Vec<String>> {
    let now = now_ms();
    let wanted = usize::try_from(limit).unwrap_or(0);
    let mut request = tn::ListTournamentsRequest {
        state: state.map_or(tn::State::Unspecified, StateArg::to_proto) as i32,
        game_type: game.map_or(GameType::Unspecified, GameArg::to_proto) as i32,
        page_size: limit.clamp(1, PAGE_SIZE),
        page_token: String::new(),
    };
    let mut out = Vec::new();
    loop {
        let page = client
            .list_tournaments(request.clone())
            .await
            .map_err(status)?
            .into_inner();
        for summary in page.tournaments.iter().take(wanted - out.len()) {
            out.push(summary_line(summary, now));
        }
        if page.next_page_token.is_empty() {
            break;
        }
        if out.len() >= wanted {
            out.push("… more: raise --limit or filter by --state, --game".into());
            break;
        }
        request.page_token = page.next_page_token;
    }
    if out.is_empty() {
        out.push("no tournaments match".into());
    }
    Ok(out)
}

/// `show`: the tournament whole.
async fn show(client: &mut TournamentClient, id: &str) -> anyhow::Result<Vec<String>> {
    let t = client
        .get_tournament(tn::GetTournamentRequest {
            tournament_id: id.to_owned(),
        })
        .await
        .map_err(status)?
        .into_inner()
        .tournament
        .unwrap_or_default();
    Ok(tournament_lines(&t, now_ms()))
}

/// `cancel`: the tournament cancelled, its fees going back.
async fn cancel(
    client: &mut TournamentClient,
    id: &str,
    reason: &str,
) -> anyhow::Result<Vec<String>> {
    let t = client
        .cancel_tournament(tn::CancelTournamentRequest {
            tournament_id: id.to_owned(),
            reason: reason.to_owned(),
        })
        .await
        .map_err(status)?
        .into_inner()
        .tournament
        .unwrap_or_default();
    let mut out = vec![format!(
        "tournament {} is cancelled (reason: {})",
        t.tournament_id, t.cancel_reason
    )];
    out.push(format!(
        "every entry fee goes back in full ({} player(s), {} silver still held); no prize is paid",
        t.players.len(),
        thousands(t.pool_silver)
    ));
    Ok(out)
}

/// One tournament of a list as a line.
pub fn summary_line(s: &tn::TournamentSummary, now: i64) -> String {
    let settings = s.settings.clone().unwrap_or_default();
    let round = match state_of(s.state) {
        tn::State::Registering => format!("starts {}", starts_text(&settings, now)),
        tn::State::Running => format!("round {}/{}", s.current_round, s.rounds_total),
        _ => count(s.rounds_total, "round"),
    };
    format!(
        "{}  {:<11}  {:<9}  {}  players {}/{}  fee {}  pool {}  {round}  created {}  {:?}",
        s.tournament_id,
        state_word(s.state),
        game_word(&settings),
        settings.room_id,
        s.players,
        settings.max_players,
        thousands(settings.entry_fee_silver),
        thousands(s.pool_silver),
        when(s.created_at_unix_ms),
        settings.name,
    )
}

/// The tournament whole, as an operator reads it.
pub fn tournament_lines(t: &tn::Tournament, now: i64) -> Vec<String> {
    let settings = t.settings.clone().unwrap_or_default();
    let format = format_of(&settings);
    let state = state_of(t.state);
    let mut out = vec![format!(
        "tournament {} {:?}  {}  version {}",
        t.tournament_id,
        settings.name,
        state_word(t.state),
        t.version
    )];
    let rounds = match (format, t.rounds_total) {
        (tn::Format::Elimination, 0) => "rounds: until the final table".to_owned(),
        (_, 0) if settings.rounds > 0 => count(settings.rounds, "round"),
        (_, 0) => "rounds: ⌈log2 players⌉ + 1, fixed at the start".to_owned(),
        (_, n) => count(n, "round"),
    };
    out.push(format!(
        "{} · room {} · {} · {rounds}{}",
        game_word(&settings),
        settings.room_id,
        format_word(format),
        if settings.unrated { " · unrated" } else { "" }
    ));
    if format == tn::Format::Elimination {
        out.push(format!(
            "{} deal(s) a table per round · {} starting chips",
            settings.deals_per_round,
            thousands(settings.starting_chips)
        ));
    }
    out.push(format!(
        "players {} (min {}, max {}) · entry fee {} · pool {} · starts {}",
        t.players.len(),
        settings.min_players,
        settings.max_players,
        thousands(settings.entry_fee_silver),
        thousands(t.pool_silver),
        starts_text(&settings, now)
    ));
    out.push(format!(
        "prizes: {}",
        prize_table(&settings.prize_shares_bp)
    ));
    let mut times = vec![format!("created {}", when(t.created_at_unix_ms))];
    if t.started_at_unix_ms > 0 {
        times.push(format!("started {}", when(t.started_at_unix_ms)));
    }
    if t.ended_at_unix_ms > 0 {
        times.push(format!("ended {}", when(t.ended_at_unix_ms)));
    }
    out.push(times.join(" · "));
    if state == tn::State::Cancelled {
        out.push(format!("cancelled (reason: {})", t.cancel_reason));
    }
    if state == tn::State::Running {
        out.push(format!("round {} of {}", t.current_round, t.rounds_total));
    }

    out.push(format!("players ({}):", t.players.len()));
    if t.players.is_empty() {
        out.push("  none yet".into());
    }
    for (i, p) in t.players.iter().enumerate() {
        let mut line = if p.seed > 0 {
            format!("  seed {:>3}  {}", p.seed, p.player_id)
        } else {
            format!("  {:>8}  {}", format!("#{}", i + 1), p.player_id)
        };
        if format == tn::Format::Elimination && t.started_at_unix_ms > 0 {
            line.push_str(&format!("  chips {}", thousands(p.chips)));
            if p.out_after_round > 0 {
                line.push_str(&format!("  out after round {}", p.out_after_round));
            }
        }
        out.push(line);
    }

    for round in &t.rounds {
        out.push(format!(
            "round {}{}:",
            round.number,
            if round.finished { " (finished)" } else { "" }
        ));
        for m in &round.matches {
            out.push(format!("  {}", match_line(m, format, &settings)));
        }
        if !round.bye_player_id.is_empty() {
            out.push(format!("  bye: {} (scores 1)", round.bye_player_id));
        }
    }

    if !t.standings.is_empty() {
        out.push(if state == tn::State::Finished {
            "final standings:".into()
        } else {
            "standings:".into()
        });
        for s in &t.standings {
            out.push(format!("  {}", standing_line(s, format)));
        }
    }
    if !t.prizes.is_empty() {
        out.push("prizes paid:".into());
        for p in &t.prizes {
            out.push(format!(
                "  {:>4}  {}  {} silver",
                ordinal(p.place),
                p.player_id,
                thousands(p.amount_silver)
            ));
        }
    }
    out
}

/// One table of a round: its players, the table, how it ended.
fn match_line(m: &tn::Match, format: tn::Format, settings: &tn::TournamentSettings) -> String {
    let table = if m.table_id.is_empty() {
        "table not open yet".to_owned()
    } else {
        format!("table {}", m.table_id)
    };
    if format == tn::Format::Elimination {
        let seats: Vec<String> = m
            .player_ids
            .iter()
            .enumerate()
            .map(|(i, p)| match m.chips_won.get(i) {
                Some(chips) => format!("{p} {}", signed(*chips)),
                None => p.clone(),
            })
            .collect();
        return format!(
            "table {}  {}  {table}  deals {}/{}{}",
            m.board,
            seats.join(", "),
            m.deals_played,
            settings.deals_per_round,
            if m.finished { "  finished" } else { "" }
        );
    }
    let black = m.player_ids.first().map_or("?", String::as_str);
    let white = m.player_ids.get(1).map_or("?", String::as_str);
    let result = match tn::GameOutcome::try_from(m.outcome).unwrap_or_default() {
        tn::GameOutcome::BlackWins => "black wins (1-0)",
        tn::GameOutcome::WhiteWins => "white wins (0-1)",
        tn::GameOutcome::Draw => "draw (½-½)",
        tn::GameOutcome::BothLose => "both lose (voided, 0-0)",
        tn::GameOutcome::Unspecified if m.finished => "finished",
        tn::GameOutcome::Unspecified if m.table_id.is_empty() => "waiting",
        tn::GameOutcome::Unspecified => "playing",
    };
    format!(
        "board {}  ● {black} vs ○ {white}  {table}  {result}",
        m.board
    )
}

/// A line of the standings.
fn standing_line(s: &tn::Standing, format: tn::Format) -> String {
    if format == tn::Format::Elimination {
        return format!(
            "{:>4}. {}  chips {}{}",
            s.place,
            s.player_id,
            thousands(s.chips),
            if s.out_after_round > 0 {
                format!("  out after round {}", s.out_after_round)
            } else {
                String::new()
            }
        );
    }
    format!(
        "{:>4}. {}  score {}  Buchholz {}  S-B {}  won {} drawn {} lost {} byes {}",
        s.place,
        s.player_id,
        score(s.score),
        score(s.buchholz),
        score(s.sonneborn_berger),
        s.wins,
        s.draws,
        s.losses,
        s.byes
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prize_percentages_become_basis_points_exactly() {
        assert_eq!(parse_prizes("50,30,20"), Ok(Prizes(vec![5000, 3000, 2000])));
        assert_eq!(parse_prizes("62.5, 37.5"), Ok(Prizes(vec![6250, 3750])));
        assert_eq!(
            parse_prizes("33.34,33.33,33.33"),
            Ok(Prizes(vec![3334, 3333, 3333]))
        );
        assert_eq!(parse_prizes("50%,50%"), Ok(Prizes(vec![5000, 5000])));
        assert_eq!(parse_prizes("100"), Ok(Prizes(vec![10_000])));
        assert_eq!(parse_prizes("0.01,99.99"), Ok(Prizes(vec![1, 9999])));
        assert_eq!(parse_prizes(""), Ok(Prizes(vec![])));
        assert_eq!(parse_prizes("12.50"), Ok(Prizes(vec![1250])));
    }

    #[test]
    fn prize_percentages_that_are_not_basis_points_are_refused() {
        for bad in [
            "12.345", "0", "0.00", "-5", "101", "1000", "abc", "50,,50", "50,", ".5", "5.", "1e2",
        ] {
            assert!(parse_prizes(bad).is_err(), "{bad:?} is refused");
        }
        let e = parse_prizes("50,12.345").unwrap_err();
        assert!(
            e.contains("\"12.345\"") && e.contains("two decimals"),
            "{e}"
        );
    }

    #[test]
    fn starts_at_is_when_full_or_an_rfc_3339_time() {
        assert_eq!(parse_starts_at("when-full"), Ok(0));
        assert_eq!(parse_starts_at("WHEN-FULL"), Ok(0));
        assert_eq!(
            parse_starts_at("2026-12-05T00:00:00Z"),
            Ok(1_796_428_800_000)
        );
        assert_eq!(
            parse_starts_at("2026-12-05T08:00:00+08:00"),
            Ok(1_796_428_800_000)
        );
        assert!(parse_starts_at("2026-12-05").is_err());
        assert!(parse_starts_at("tomorrow").is_err());
        assert!(parse_starts_at("").is_err());
    }

    #[test]
    fn a_swiss_tournament_shows_players_pairings_results_standings_and_prizes() {
        let t = tn::Tournament {
            tournament_id: "tn-1".into(),
            settings: Some(tn::TournamentSettings {
                name: "Open".into(),
                game_type: GameType::Gomoku as i32,
                room_id: "gomoku-free".into(),
                format: tn::Format::Swiss as i32,
                entry_fee_silver: 1000,
                min_players: 2,
                max_players: 3,
                prize_shares_bp: vec![10_000],
                ..Default::default()
            }),
            state: tn::State::Finished as i32,
            players: vec![
                tn::Entrant {
                    player_id: "ann".into(),
                    seed: 1,
                    ..Default::default()
                },
                tn::Entrant {
                    player_id: "bob".into(),
                    seed: 2,
                    ..Default::default()
                },
                tn::Entrant {
                    player_id: "cat".into(),
                    seed: 3,
                    ..Default::default()
                },
            ],
            rounds_total: 1,
            current_round: 1,
            rounds: vec![tn::Round {
                number: 1,
                matches: vec![tn::Match {
                    board: 1,
                    player_ids: vec!["ann".into(), "bob".into()],
                    table_id: "gt-9".into(),
                    finished: true,
                    outcome: tn::GameOutcome::BlackWins as i32,
                    ..Default::default()
                }],
                bye_player_id: "cat".into(),
                finished: true,
            }],
            standings: vec![tn::Standing {
                place: 1,
                player_id: "ann".into(),
                score: 1.0,
                buchholz: 0.0,
                sonneborn_berger: 0.5,
                wins: 1,
                ..Default::default()
            }],
            pool_silver: 3000,
            prizes: vec![tn::PaidPrize {
                place: 1,
                player_id: "ann".into(),
                amount_silver: 3000,
            }],
            ..Default::default()
        };
        let lines = tournament_lines(&t, 0);
        let text = lines.join("\n");
        assert!(
            text.contains("tournament tn-1 \"Open\"  finished"),
            "{text}"
        );
        assert!(
            text.contains("Gomoku · room gomoku-free · Swiss (瑞士制) · 1 round"),
            "{text}"
        );
        assert!(
            text.contains("entry fee 1,000 · pool 3,000 · starts when full"),
            "{text}"
        );
        assert!(text.contains("prizes: 1st 100%"), "{text}");
        assert!(
            lines.contains(&"  board 1  ● ann vs ○ bob  table gt-9  black wins (1-0)".to_owned()),
            "{text}"
        );
        assert!(
            lines.contains(&"  bye: cat (scores 1)".to_owned()),
            "{text}"
        );
        assert!(
            lines.contains(
                &"     1. ann  score 1  Buchholz 0  S-B 0.5  won 1 drawn 0 lost 0 byes 0"
                    .to_owned()
            ),
            "{text}"
        );
        assert!(
            lines.contains(&"   1st  ann  3,000 silver".to_owned()),
            "{text}"
        );
    }

    #[test]
    fn an_elimination_table_shows_chips_won_and_deals() {
        let settings = tn::TournamentSettings {
            game_type: GameType::Doudizhu as i32,
            deals_per_round: 3,
            ..Default::default()
        };
        let m = tn::Match {
            board: 2,
            player_ids: vec!["a".into(), "b".into(), "c".into()],
            table_id: "ddz-1".into(),
            deals_played: 2,
            chips_won: vec![120, -60, -60],
            ..Default::default()
        };
        assert_eq!(
            match_line(&m, format_of(&settings), &settings),
            "table 2  a +120, b -60, c -60  table ddz-1  deals 2/3"
        );
    }
}
