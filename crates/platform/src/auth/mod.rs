//! Bearer-token authentication: JWTs carrying who calls (`sub`), in which role
//! (`player`, `service`, `operator`) and until when (`exp`), verified by [`Keys`]:
//! against public keys from a JWKS ([`jwks`]), chosen by the token's `kid`, and in
//! development also against the shared HMAC key (HS256), which production refuses.
//!
//! The server's authenticate layer ([`crate::server::AuthLayer`]) verifies the token of
//! every call (health and reflection excepted, so load balancers and `grpcurl` work) and
//! puts a typed [`Caller`] into the request's extensions; handlers read it with
//! [`Caller::of`] and check what it may do.

pub mod jwks;
pub mod key_dir;
mod keys;

use serde::{Deserialize, Serialize};

pub use keys::{Keys, TokenSettings};

use crate::error::ApiError;

/// What a caller is allowed to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// A person playing: may act only for itself.
    Player,
    /// A gamehub service: opens tables, settles games, checks eligibility.
    Service,
    /// A person running the platform: grants silver, sets professional dans, reads all.
    Operator,
}

impl Role {
    /// The role's name as it appears in tokens.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Player => "player",
            Role::Service => "service",
            Role::Operator => "operator",
        }
    }
}

impl std::str::FromStr for Role {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "player" => Ok(Role::Player),
            "service" => Ok(Role::Service),
            "operator" => Ok(Role::Operator),
            other => Err(format!(
                "unknown role {other:?}; expected player, service or operator"
            )),
        }
    }
}

/// The claims of a gamehub token.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Claims {
    /// The caller's id: a player id, a service name or an operator name.
    pub sub: String,
    /// The caller's role.
    pub role: Role,
    /// Expiry, seconds since the Unix epoch.
    pub exp: u64,
    /// Issued at, seconds since the Unix epoch.
    pub iat: u64,
}

/// The verified caller of a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// Who: the token's subject.
    pub subject: String,
    /// In which role.
    pub role: Role,
}

impl Caller {
    /// The caller that the server's [`crate::server::AuthLayer`] put into the request.
    pub fn of<T>(request: &tonic::Request<T>) -> Result<&Caller, ApiError> {
        request.extensions().get::<Caller>().ok_or_else(|| {
            ApiError::Unauthenticated("missing bearer token in the authorization metadata".into())
        })
    }

    /// Refuses unless the caller has one of `roles`.
    pub fn require(&self, roles: &[Role], action: &str) -> Result<(), ApiError> {
        if roles.contains(&self.role) {
            Ok(())
        } else {
            let allowed: Vec<_> = roles.iter().map(|r| r.as_str()).collect();
            let article = if allowed.first().is_some_and(|r| r.starts_with('o')) {
                "an"
            } else {
                "a"
            };
            Err(ApiError::PermissionDenied(format!(
                "{action} needs {article} {} token; this token's role is {}",
                allowed.join(" or "),
                self.role.as_str()
            )))
        }
    }

    /// Whether the caller may act for or read the data of `player_id`: a player only
    /// for itself; services and operators for anyone.
    pub fn may_act_for(&self, player_id: &str) -> bool {
        match self.role {
            Role::Player => self.subject == player_id,
            Role::Service | Role::Operator => true,
        }
    }

    /// Refuses unless [`Caller::may_act_for`] holds.
    pub fn ensure_acts_for(&self, player_id: &str) -> Result<(), ApiError> {
        if self.may_act_for(player_id) {
            Ok(())
        } else {
            Err(ApiError::PermissionDenied(format!(
                "a player token acts only for its own player ({}), not for {player_id}",
                self.subject
            )))
        }
    }

    /// The player id a request means: `requested` when given, else the caller itself.
    pub fn player_or_self<'a>(&'a self, requested: &'a str) -> &'a str {
        if requested.trim().is_empty() {
            &self.subject
        } else {
            requested.trim()
        }
    }
}

/// The most a subject may hold: ids are short.
pub const MAX_SUBJECT_LEN: usize = 64;

/// The subject of matchmaking's service tokens: the one service the game services let
/// leave a table for a player, and only at a friends' table it opened.
pub const MATCHMAKING_SUBJECT: &str = "matchmaking";

/// The subject of the tournament service's tokens: it opens the tournaments' tables at
/// the game services and moves entry fees and prizes at the ledger.
pub const TOURNAMENTS_SUBJECT: &str = "tournaments";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn players_act_only_for_themselves() {
        let alice = Caller {
            subject: "alice".into(),
            role: Role::Player,
        };
        assert!(alice.ensure_acts_for("alice").is_ok());
        assert!(alice.ensure_acts_for("bob").is_err());
        assert!(alice.require(&[Role::Service], "settling").is_err());
        let service = Caller {
            subject: "referee".into(),
            role: Role::Service,
        };
        assert!(service.ensure_acts_for("bob").is_ok());
    }
}
