//! Bearer-token authentication: JWTs signed with HMAC-SHA256 carrying who calls
//! (`sub`), in which role (`player`, `service`, `operator`) and until when (`exp`).
//!
//! The server's authenticate layer ([`crate::server::AuthLayer`]) verifies the token of
//! every call (health and reflection excepted, so load balancers and `grpcurl` work) and
//! puts a typed [`Caller`] into the request's extensions; handlers read it with
//! [`Caller::of`] and check what it may do.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};

use crate::config::env::Secret;
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
    verified: Arc<Mutex<Verified>>,
}

/// Tokens verified before, by their whole text, with their caller and expiry: a client
/// sends the same token with every call, and its signature and claims need checking
/// once, not at every call (that was 4% of a Gomoku move's CPU in the referee). Any
/// other text, a changed signature included, misses and is verified in full.
#[derive(Default)]
struct Verified {
    tokens: HashMap<String, (Caller, u64)>,
}

/// Tokens remembered at most; past it the memory starts over (a few hundred bytes each).
const VERIFIED_TOKENS_KEPT: usize = 8_192;

/// Seconds past `exp` a token is still accepted (clocks differ between machines).
const LEEWAY_SECS: u64 = 5;

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Keys([redacted])")
    }
}

const EXPIRED: &str = "the token has expired; get a new one";

/// The most a subject may hold: ids are short.
pub const MAX_SUBJECT_LEN: usize = 64;

/// The subject of matchmaking's service tokens: the one service the game services let
/// leave a table for a player, and only at a friends' table it opened.
pub const MATCHMAKING_SUBJECT: &str = "matchmaking";

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
        validation.leeway = LEEWAY_SECS;
        Self {
            encoding: Arc::new(EncodingKey::from_secret(bytes)),
            decoding: Arc::new(DecodingKey::from_secret(bytes)),
            validation: Arc::new(validation),
            verified: Arc::default(),
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
        self.verify_at(token, now_secs())
    }

    /// [`Keys::verify`] at `now` (seconds since the Unix epoch) for a token verified
    /// before; a new token is verified against the system clock.
    fn verify_at(&self, token: &str, now: u64) -> Result<Caller, ApiError> {
        let known = self
            .lock_verified()
            .tokens
            .get(token)
            .map(|(caller, exp)| (caller.clone(), *exp));
        if let Some((caller, exp)) = known {
            if now > exp.saturating_add(LEEWAY_SECS) {
                self.lock_verified().tokens.remove(token);
                return Err(ApiError::Unauthenticated(EXPIRED.into()));
            }
            return Ok(caller);
        }
        let (caller, exp) = self.verify_in_full(token)?;
        let mut verified = self.lock_verified();
        if verified.tokens.len() >= VERIFIED_TOKENS_KEPT {
            verified.tokens.clear();
        }
        verified
            .tokens
            .insert(token.to_owned(), (caller.clone(), exp));
        Ok(caller)
    }

    fn lock_verified(&self) -> std::sync::MutexGuard<'_, Verified> {
        self.verified
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The signature and the claims checked; the caller and the expiry.
    fn verify_in_full(&self, token: &str) -> Result<(Caller, u64), ApiError> {
        let data = jsonwebtoken::decode::<Claims>(token, &self.decoding, &self.validation)
            .map_err(|e| {
                use jsonwebtoken::errors::ErrorKind;
                let why = match e.kind() {
                    ErrorKind::ExpiredSignature => EXPIRED,
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
        Ok((
            Caller {
                subject: claims.sub,
                role: claims.role,
            },
            claims.exp,
        ))
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
    fn a_remembered_token_still_expires_and_a_changed_one_is_verified_again() {
        let k = keys();
        let token = k
            .mint("alice", Role::Player, Duration::from_secs(60))
            .unwrap();
        let now = now_secs();
        assert_eq!(k.verify_at(&token, now).unwrap().subject, "alice");
        assert_eq!(k.lock_verified().tokens.len(), 1, "remembered");
        // Remembered, it is still refused once past its expiry and the leeway.
        assert!(k.verify_at(&token, now + 60 + LEEWAY_SECS).is_ok());
        let err = k.verify_at(&token, now + 61 + LEEWAY_SECS).unwrap_err();
        assert!(err.to_string().contains("expired"), "{err}");
        assert!(
            k.lock_verified().tokens.is_empty(),
            "forgotten once expired"
        );
        // Another signature on the same claims misses and fails in full.
        assert!(k.verify(&token).is_ok());
        let (body, signature) = token.rsplit_once('.').unwrap();
        let flipped = if signature.starts_with('A') { 'B' } else { 'A' };
        let forged = format!("{body}.{flipped}{}", &signature[1..]);
        let err = k.verify(&forged).unwrap_err();
        assert!(matches!(err, ApiError::Unauthenticated(_)), "{err}");
    }

    #[test]
    fn remembered_tokens_are_bounded() {
        let k = keys();
        for i in 0..VERIFIED_TOKENS_KEPT + 10 {
            let token = k
                .mint(&format!("p{i}"), Role::Player, Duration::from_secs(60))
                .unwrap();
            k.verify(&token).unwrap();
            assert!(k.lock_verified().tokens.len() <= VERIFIED_TOKENS_KEPT);
        }
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
