//! Bearer-token authentication: JWTs signed with HMAC-SHA256 carrying who calls
//! (`sub`), in which role (`player`, `service`, `operator`) and until when (`exp`).
//!
//! The server's authenticate layer ([`crate::server::AuthLayer`]) verifies the token of
//! every call (health and reflection excepted, so load balancers and `grpcurl` work) and
//! puts a typed [`Caller`] into the request's extensions; handlers read it with
//! [`Caller::of`] and check what it may do.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};

use crate::config::Secret;
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

/// Signs and verifies tokens with one HMAC key.
#[derive(Clone)]
pub struct Keys {
    encoding: Arc<EncodingKey>,
    decoding: Arc<DecodingKey>,
    validation: Arc<Validation>,
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Keys([redacted])")
    }
}

/// The most a subject may hold: ids are short.
pub const MAX_SUBJECT_LEN: usize = 64;

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

impl Keys {
    /// Keys from the configured secret.
    pub fn new(secret: &Secret) -> Self {
        let bytes = secret.expose().as_bytes();
        let mut validation = Validation::new(Algorithm::HS256);
        validation.set_required_spec_claims(&["exp", "sub"]);
        validation.leeway = 5;
        Self {
            encoding: Arc::new(EncodingKey::from_secret(bytes)),
            decoding: Arc::new(DecodingKey::from_secret(bytes)),
            validation: Arc::new(validation),
        }
    }

    /// Mints a token for `subject` in `role`, valid for `ttl`.
    pub fn mint(&self, subject: &str, role: Role, ttl: Duration) -> Result<String, ApiError> {
        crate::error::id("subject", subject, MAX_SUBJECT_LEN)?;
        let iat = now_secs();
        let claims = Claims {
            sub: subject.to_owned(),
            role,
            iat,
            exp: iat.saturating_add(ttl.as_secs().max(1)),
        };
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &self.encoding)
            .map_err(ApiError::internal)
    }

    /// Verifies a token and returns its caller.
    pub fn verify(&self, token: &str) -> Result<Caller, ApiError> {
        let data = jsonwebtoken::decode::<Claims>(token, &self.decoding, &self.validation)
            .map_err(|e| {
                use jsonwebtoken::errors::ErrorKind;
                let why = match e.kind() {
                    ErrorKind::ExpiredSignature => "the token has expired; get a new one",
                    ErrorKind::InvalidSignature => "the token's signature does not verify",
                    ErrorKind::InvalidToken | ErrorKind::Base64(_) | ErrorKind::Json(_) => {
                        "the bearer token is not a well-formed JWT"
                    }
                    ErrorKind::MissingRequiredClaim(_) => "the token lacks a sub or exp claim",
                    ErrorKind::InvalidAlgorithm => "the token must be signed with HS256",
                    _ => "the bearer token is not valid",
                };
                ApiError::Unauthenticated(why.into())
            })?;
        let claims = data.claims;
        if crate::error::id("sub", &claims.sub, MAX_SUBJECT_LEN).is_err() {
            return Err(ApiError::Unauthenticated(
                "the token's subject is not a valid id".into(),
            ));
        }
        Ok(Caller {
            subject: claims.sub,
            role: claims.role,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys() -> Keys {
        Keys::new(&Secret::new("test-secret"))
    }

    #[test]
    fn a_minted_token_verifies_as_its_caller() {
        let k = keys();
        let token = k
            .mint("alice", Role::Player, Duration::from_secs(60))
            .unwrap();
        let caller = k.verify(&token).unwrap();
        assert_eq!(caller.subject, "alice");
        assert_eq!(caller.role, Role::Player);
    }

    #[test]
    fn a_token_signed_with_another_key_is_refused() {
        let other = Keys::new(&Secret::new("other"));
        let token = other
            .mint("alice", Role::Operator, Duration::from_secs(60))
            .unwrap();
        let err = keys().verify(&token).unwrap_err();
        assert!(matches!(err, ApiError::Unauthenticated(_)));
    }

    #[test]
    fn an_expired_token_is_refused_with_a_reason() {
        let k = keys();
        let claims = Claims {
            sub: "alice".into(),
            role: Role::Player,
            iat: 1,
            exp: 2,
        };
        let token =
            jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &k.encoding).unwrap();
        let err = k.verify(&token).unwrap_err();
        assert!(err.to_string().contains("expired"));
    }

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
