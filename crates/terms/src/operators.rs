//! What an operator's action carries into the audit trail: the bound on its reason,
//! shared by the ledger (grants, professional dans, names, recorded actions) and the
//! game services (closing a table, redelivering), so a reason one accepts the other
//! can record.

/// The longest reason an operator may give for an action, in characters.
pub const MAX_REASON_CHARS: usize = 200;
