//! The ledger's default win/loss caps (输赢上限, docs/rules.md#caps). The
//! ledger applies them (`GAMEHUB_LEDGER_*_CAP_SILVER` override each); matchmaking reads
//! the per-game loss cap to size a room's default minimum balance.

/// Most silver one player wins in one game.
pub const DEFAULT_GAME_WIN_CAP_SILVER: i64 = 50_000;
/// Most silver one player loses in one game (penalties included).
pub const DEFAULT_GAME_LOSS_CAP_SILVER: i64 = 50_000;
/// Most silver one player wins in one day.
pub const DEFAULT_DAILY_WIN_CAP_SILVER: i64 = 150_000;
/// Most silver one player loses in one day (penalties included).
pub const DEFAULT_DAILY_LOSS_CAP_SILVER: i64 = 150_000;

/// The variable that sets the per-game loss cap, for every service that needs it.
pub const GAME_LOSS_CAP_VAR: &str = "GAMEHUB_LEDGER_GAME_LOSS_CAP_SILVER";
