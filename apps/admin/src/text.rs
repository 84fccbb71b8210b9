//! Times and enum values as an operator reads them.

/// A Unix time in ms as `YYYY-MM-DD HH:MM:SS UTC`.
pub fn when(unix_ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(unix_ms)
        .map(|t| t.format("%Y-%m-%d %H:%M:%S UTC").to_string())
        .unwrap_or_else(|| "-".into())
}

/// "12s", "5m", "3h", "2d": how long ago (or, negative, how long until).
pub fn age(now_ms: i64, at_ms: i64) -> String {
    let secs = (now_ms - at_ms) / 1000;
    let (sign, secs) = if secs < 0 { ("in ", -secs) } else { ("", secs) };
    let text = match secs {
        s if s < 120 => format!("{s}s"),
        s if s < 7200 => format!("{}m", s / 60),
        s if s < 172_800 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86_400),
    };
    format!("{sign}{text}")
}

/// The local clock, Unix ms.
pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// A protobuf enum value by its name (`TABLE_STATUS_PLAYING`), or its number when it is
/// not one this build knows.
pub fn enum_name<E: TryFrom<i32>>(value: i32, name: impl Fn(&E) -> &'static str) -> String {
    E::try_from(value).map_or_else(|_| value.to_string(), |e| name(&e).to_owned())
}
