//! Who may call what: one table naming, for every RPC of every gamehub service, the
//! identities allowed to call it. The server's authenticate layer
//! ([`crate::server::AuthLayer`]) checks it after the token verifies and before any
//! handler runs, so a call outside it is refused with `PERMISSION_DENIED` ("… needs
//! an operator token; this token is …") and changes nothing. A method missing from the table is refused to everyone (a new RPC must be
//! given its line), and a test checks the table against the protos.
//!
//! Handlers still check what depends on the request itself: a player acts only for
//! itself, and a game service settles only games of its own game type (the ledger).

use gamehub_terms::games;

use crate::auth::{Caller, MATCHMAKING_SUBJECT, Role, TOURNAMENTS_SUBJECT};
use crate::error::ApiError;

/// One kind of identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Who {
    /// People playing (player tokens).
    Players,
    /// People running the platform (operator tokens).
    Operators,
    /// The matchmaking service (service token, subject `matchmaking`).
    Matchmaking,
    /// The tournament service (service token, subject `tournaments`).
    Tournaments,
    /// Any game's own service (service token whose subject is a game's
    /// [`games::Service::identity`]: `gomoku-referee`, `doudizhu-dealer`).
    GameServices,
}

impl Who {
    /// Whether `caller` is one of these.
    pub fn admits(self, caller: &Caller) -> bool {
        match self {
            Who::Players => caller.role == Role::Player,
            Who::Operators => caller.role == Role::Operator,
            Who::Matchmaking => {
                caller.role == Role::Service && caller.subject == MATCHMAKING_SUBJECT
            }
            Who::Tournaments => {
                caller.role == Role::Service && caller.subject == TOURNAMENTS_SUBJECT
            }
            Who::GameServices => {
                caller.role == Role::Service && game_of_service(&caller.subject).is_some()
            }
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Who::Players => "a player",
            Who::Operators => "an operator",
            Who::Matchmaking => "matchmaking's service",
            Who::Tournaments => "the tournament service's",
            Who::GameServices => "a game service's",
        }
    }
}

/// The game whose service has the identity `subject`.
pub fn game_of_service(subject: &str) -> Option<&'static games::Game> {
    games::GAMES
        .iter()
        .copied()
        .find(|game| game.service.identity == subject)
}

use Who::{GameServices, Matchmaking, Operators, Players, Tournaments};

/// Every identity that can hold a token.
const ANYONE: &[Who] = &[Players, Operators, Matchmaking, Tournaments, GameServices];
/// People: players and operators.
const PEOPLE: &[Who] = &[Players, Operators];

/// The methods of one gRPC service and who may call each.
pub struct ServiceRules {
    /// The service's full name, e.g. `gamehub.ledger.v1.LedgerService`.
    pub service: &'static str,
    /// Each method's name with its callers.
    pub methods: &'static [(&'static str, &'static [Who])],
}

/// The methods every game's service serves (its own proto names them alike): reading
/// and watching is open to everyone, a seat's moves to players, opening a table to
/// matchmaking and the tournament service, and leaving also to matchmaking (for a player
/// at a friends' table).
const GAME_METHODS_COMMON: &[(&str, &[Who])] = &[
    ("OpenTable", &[Matchmaking, Tournaments]),
    ("GetTable", ANYONE),
    ("Leave", &[Players, Matchmaking]),
    ("Watch", ANYONE),
    ("ListTables", ANYONE),
];

/// The table.
pub static RULES: &[ServiceRules] = &[
    ServiceRules {
        service: "gamehub.ledger.v1.LedgerService",
        methods: &[
            (
                "GetAccount",
                &[Players, Operators, Matchmaking, Tournaments],
            ),
            ("GrantSilver", &[Operators]),
            ("SettleGame", &[GameServices]),
            (
                "CheckEligibility",
                &[Players, Operators, Matchmaking, GameServices],
            ),
            ("ListHistory", PEOPLE),
            ("GetGameRecord", PEOPLE),
            ("ListGames", PEOPLE),
            ("GetLeaderboard", ANYONE),
            ("SetProfessional", &[Operators]),
            ("SetName", PEOPLE),
            ("GetProfiles", ANYONE),
            ("RecordOperatorAction", &[GameServices]),
            ("ListOperatorActions", &[Operators]),
            ("HoldEntryFee", &[Tournaments]),
            ("RefundEntryFee", &[Tournaments]),
            ("PayPrizes", &[Tournaments]),
        ],
    },
    ServiceRules {
        service: "gamehub.matchmaking.v1.MatchmakingService",
        methods: &[
            ("ListRooms", ANYONE),
            ("Enqueue", PEOPLE),
            ("CancelTicket", PEOPLE),
            ("GetTicket", PEOPLE),
            ("WatchTicket", PEOPLE),
            ("LocatePlayer", PEOPLE),
            ("OpenFriendsTable", &[Players]),
            ("GetFriendsTable", ANYONE),
            ("WatchFriendsTable", ANYONE),
            ("JoinFriendsTable", &[Players]),
            ("SetReady", &[Players]),
            ("LeaveFriendsTable", &[Players]),
            ("RemoveFromFriendsTable", &[Players]),
            ("AddBots", &[Players]),
            ("CloseFriendsTable", PEOPLE),
        ],
    },
    ServiceRules {
        service: "gamehub.tournament.v1.TournamentService",
        methods: &[
            ("CreateTournament", &[Operators]),
            ("ListTournaments", ANYONE),
            ("GetTournament", ANYONE),
            ("Register", &[Players]),
            ("Unregister", &[Players]),
            ("CancelTournament", &[Operators]),
            ("WatchTournament", ANYONE),
        ],
    },
    ServiceRules {
        service: "gamehub.operator.v1.TableOperatorService",
        methods: &[
            ("ListDeadLetters", &[Operators]),
            ("Redeliver", &[Operators]),
            ("CloseTable", &[Operators]),
        ],
    },
    ServiceRules {
        service: "gamehub.gomoku.v1.GomokuService",
        methods: &[
            ("PlaceStone", &[Players]),
            ("ClaimForbidden", &[Players]),
            ("Resign", &[Players]),
            ("OfferDraw", &[Players]),
            ("AnswerDraw", &[Players]),
            ("Swap", &[Players]),
            ("ProposeFifthMoves", &[Players]),
            ("ChooseFifthMove", &[Players]),
            ("NextGame", &[Players]),
            ("GetRecord", ANYONE),
            ("ExportRecord", ANYONE),
            ("LoadRecord", ANYONE),
        ],
    },
    ServiceRules {
        service: "gamehub.doudizhu.v1.DoudizhuService",
        methods: &[
            ("Bid", &[Players]),
            ("Call", &[Players]),
            ("Rob", &[Players]),
            ("Double", &[Players]),
            ("Show", &[Players]),
            ("Play", &[Players]),
            ("Pass", &[Players]),
            ("Hint", &[Players]),
            ("SetAutoPlay", &[Players]),
            ("NextDeal", &[Players]),
            ("GetDealRecord", ANYONE),
        ],
    },
];

/// The game services' full names, whose common methods are [`GAME_METHODS_COMMON`].
const GAME_SERVICES: &[&str] = &[
    "gamehub.gomoku.v1.GomokuService",
    "gamehub.doudizhu.v1.DoudizhuService",
];

/// Who may call the method at `path` (`/package.Service/Method`); `None` when the
/// table does not name it.
pub fn callers_of(path: &str) -> Option<&'static [Who]> {
    let (service, method) = path.strip_prefix('/')?.split_once('/')?;
    if GAME_SERVICES.contains(&service)
        && let Some((_, who)) = GAME_METHODS_COMMON.iter().find(|(m, _)| *m == method)
    {
        return Some(who);
    }
    RULES
        .iter()
        .find(|rules| rules.service == service)?
        .methods
        .iter()
        .find(|(m, _)| *m == method)
        .map(|(_, who)| *who)
}

/// Every method path the table names.
pub fn all_paths() -> Vec<String> {
    let mut paths: Vec<String> = RULES
        .iter()
        .flat_map(|rules| {
            rules
                .methods
                .iter()
                .map(move |(method, _)| format!("/{}/{method}", rules.service))
        })
        .collect();
    for service in GAME_SERVICES {
        paths.extend(
            GAME_METHODS_COMMON
                .iter()
                .map(|(method, _)| format!("/{service}/{method}")),
        );
    }
    paths
}

/// Refuses `caller` unless the table lets it call `path`. Paths outside gamehub's own
/// packages (health, reflection) are not the table's.
pub fn check(path: &str, caller: &Caller) -> Result<(), ApiError> {
    if !path.starts_with("/gamehub.") {
        return Ok(());
    }
    let method = path.trim_start_matches('/');
    let Some(who) = callers_of(path) else {
        return Err(ApiError::PermissionDenied(format!(
            "{} is not in the access table: nobody may call it",
            crate::error::excerpt(method)
        )));
    };
    if who.iter().any(|w| w.admits(caller)) {
        return Ok(());
    }
    let allowed: Vec<&str> = who.iter().map(|w| w.describe()).collect();
    Err(ApiError::PermissionDenied(format!(
        "{method} needs {} token; this token is {} {:?}",
        allowed.join(" or "),
        caller.role.as_str(),
        caller.subject
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caller(subject: &str, role: Role) -> Caller {
        Caller {
            subject: subject.into(),
            role,
        }
    }

    #[test]
    fn the_table_names_every_method_of_every_proto_once() {
        use prost::Message as _;
        let set = prost_types::FileDescriptorSet::decode(gamehub_proto::FILE_DESCRIPTOR_SET)
            .expect("the descriptor set decodes");
        let mut in_protos = Vec::new();
        for file in &set.file {
            for service in &file.service {
                for method in &service.method {
                    in_protos.push(format!(
                        "/{}.{}/{}",
                        file.package(),
                        service.name(),
                        method.name()
                    ));
                }
            }
        }
        in_protos.sort();
        let mut in_table = all_paths();
        in_table.sort();
        let before = in_table.len();
        in_table.dedup();
        assert_eq!(before, in_table.len(), "a method named twice");
        assert_eq!(
            in_table, in_protos,
            "the access table and the protos differ"
        );
    }

    #[test]
    fn services_are_told_apart_by_identity() {
        let settle = "/gamehub.ledger.v1.LedgerService/SettleGame";
        assert!(check(settle, &caller("gomoku-referee", Role::Service)).is_ok());
        assert!(check(settle, &caller("doudizhu-dealer", Role::Service)).is_ok());
        for refused in [
            caller("matchmaking", Role::Service),
            caller("some-service", Role::Service),
            caller("root", Role::Operator),
            caller("alice", Role::Player),
        ] {
            let err = check(settle, &refused).unwrap_err();
            assert!(matches!(err, ApiError::PermissionDenied(_)), "{err}");
        }
        let grant = "/gamehub.ledger.v1.LedgerService/GrantSilver";
        let err = check(grant, &caller("matchmaking", Role::Service)).unwrap_err();
        assert!(err.to_string().contains("needs an operator token"), "{err}");
        assert!(check("/gamehub.nope.v1.X/Y", &caller("root", Role::Operator)).is_err());
        assert!(check("/grpc.health.v1.Health/Check", &caller("x", Role::Player)).is_ok());
    }
}
