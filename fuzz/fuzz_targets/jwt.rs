//! Bearer tokens as every call carries them: `Keys::verify` on any text (the HS256
//! keys of `GAMEHUB_JWT_SECRET`, the verified-token memory included), and on tokens
//! whose header and claims are the fuzzer's (the input's two lines, as JSON) but whose
//! signature is right, so that the claims' checks are reached, not only the signature's.
//! Also the role names a token carries.
//!
//! Properties: a token that verifies names a subject that is a valid id, and verifies
//! again (from the memory) as the same caller.
#![no_main]

use std::sync::LazyLock;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use gamehub_platform::auth::{Keys, MAX_SUBJECT_LEN, Role};
use gamehub_platform::config::env::Secret;
use jsonwebtoken::{Algorithm, EncodingKey};
use libfuzzer_sys::fuzz_target;

/// The development secret's shape: any text; the fuzzer never sees it.
const SECRET: &str = "fuzz-secret-of-the-keys-under-test";

static KEYS: LazyLock<Keys> = LazyLock::new(|| Keys::new(&Secret::new(SECRET)));
static SIGNING: LazyLock<EncodingKey> =
    LazyLock::new(|| EncodingKey::from_secret(SECRET.as_bytes()));

fuzz_target!(|data: &[u8]| {
    let Some(text) = gamehub_fuzz::text(data) else {
        return;
    };
    verify(text);
    if let Some((header, claims)) = text.split_once('\n') {
        let message = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header),
            URL_SAFE_NO_PAD.encode(claims)
        );
        let signature = jsonwebtoken::crypto::sign(message.as_bytes(), &SIGNING, Algorithm::HS256)
            .expect("HMAC signs any message");
        verify(&format!("{message}.{signature}"));
    }
    if let Ok(role) = text.parse::<Role>() {
        assert_eq!(role.as_str().parse::<Role>(), Ok(role));
    }
});

fn verify(token: &str) {
    let Ok(caller) = KEYS.verify(token) else {
        return;
    };
    assert!(
        gamehub_terms::ids::check(&caller.subject, MAX_SUBJECT_LEN).is_ok(),
        "subject {:?}",
        caller.subject
    );
    if let Ok(again) = KEYS.verify(token) {
        assert_eq!(again, caller);
    }
}
