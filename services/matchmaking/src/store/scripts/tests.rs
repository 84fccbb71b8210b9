//! Every ticket script against the real Redis (`REDIS_URL` or 127.0.0.1:6379), each
//! reply it gives, refusals included; and each decoder refusing replies its script never
//! gives. Keys live under a prefix of the test's own.
#![allow(clippy::unwrap_used)]

use gamehub_platform::RedisConn;
use redis::Value;

use super::Scripts;
use super::claim::*;
use super::player::*;
use super::ticket::*;
use crate::tickets::{TicketId, TicketState};
use gamehub_terms::games::GOMOKU;

const ROOM: &str = "gomoku-renju";
const DAY_MS: u64 = 86_400_000;
const NOW: u64 = 1_000_000;

struct Rig {
    conn: RedisConn,
    scripts: Scripts,
    prefix: String,
}

impl Rig {
    async fn new() -> Self {
        Self {
            conn: gamehub_testkit::redis::connect().await,
            scripts: Scripts::new(),
            prefix: format!("mmtest{}", uuid::Uuid::new_v4().simple()),
        }
    }

    fn room_base(&self) -> String {
        format!("{}:{{mm:{ROOM}}}", self.prefix)
    }

    fn player_base(&self, player: &str) -> String {
        format!("{}:{{mmp:{player}}}", self.prefix)
    }

    /// The room's channel: it carries the room's tag, as the store's does.
    fn channel(&self) -> String {
        format!("{}:tickets", self.room_base())
    }

    fn conn(&self) -> RedisConn {
        self.conn.clone()
    }

    /// Enqueues a ticket of `player` made at `now`, waiting `ttl_ms`.
    async fn enqueue_at(
        &self,
        player: &str,
        now_ms: u64,
        ttl_ms: u64,
        max_queue: u64,
    ) -> (TicketId, Created) {
        let id = TicketId::new(ROOM);
        let created = self
            .enqueue_id(&id, player, now_ms, ttl_ms, max_queue)
            .await;
        (id, created)
    }

    async fn enqueue_id(
        &self,
        id: &TicketId,
        player: &str,
        now_ms: u64,
        ttl_ms: u64,
        max_queue: u64,
    ) -> Created {
        let (base, channel) = (self.room_base(), self.channel());
        let args = EnqueueArgs {
            room_base: &base,
            ticket: id.as_str(),
            player,
            request_id: &format!("rq-{player}"),
            now_ms,
            ttl_ms,
            max_queue,
            rating: 2000,
            retention_ms: DAY_MS,
            channel: &channel,
        };
        self.scripts
            .enqueue
            .run(&mut self.conn(), &args)
            .await
            .unwrap()
    }

    async fn enqueue(&self, player: &str) -> TicketId {
        let (id, created) = self.enqueue_at(player, NOW, DAY_MS, 100).await;
        assert_eq!(created, Created::Queued);
        id
    }

    async fn read(
        &self,
        id: &TicketId,
    ) -> Result<Option<crate::tickets::Ticket>, gamehub_platform::ApiError> {
        let base = self.room_base();
        self.scripts
            .read
            .run(
                &mut self.conn(),
                &ReadArgs {
                    room_base: &base,
                    ticket: id,
                },
            )
            .await
    }

    async fn state(&self, id: &TicketId) -> TicketState {
        self.read(id).await.unwrap().unwrap().state
    }

    async fn cancel(&self, id: &TicketId) -> Result<Cancelled, gamehub_platform::ApiError> {
        let (base, channel) = (self.room_base(), self.channel());
        let args = CancelArgs {
            room_base: &base,
            ticket: id.as_str(),
            now_ms: NOW + 1,
            retention_ms: DAY_MS,
            channel: &channel,
        };
        self.scripts.cancel.run(&mut self.conn(), &args).await
    }

    async fn claim(&self, groups: &[ClaimGroup]) -> Vec<String> {
        let (base, channel) = (self.room_base(), self.channel());
        let args = ClaimArgs {
            room_base: &base,
            now_ms: NOW + 1,
            deadline_ms: NOW + 1_000,
            channel: &channel,
            groups,
        };
        self.scripts
            .claim
            .run(&mut self.conn(), &args)
            .await
            .unwrap()
    }

    async fn opening(&self, openings: &[Opening]) -> Vec<String> {
        let base = self.room_base();
        let args = OpeningArgs {
            room_base: &base,
            deadline_ms: NOW + 2_000,
            openings,
        };
        self.scripts
            .opening
            .run(&mut self.conn(), &args)
            .await
            .unwrap()
    }

    async fn seat(&self, seatings: &[Seating]) -> Vec<String> {
        let (base, channel) = (self.room_base(), self.channel());
        let args = SeatArgs {
            room_base: &base,
            now_ms: NOW + 10,
            retention_ms: DAY_MS,
            channel: &channel,
            game: GOMOKU.key,
            waited_ms: 20,
            waited_tickets: 2,
            seatings,
        };
        self.scripts
            .seat
            .run(&mut self.conn(), &args)
            .await
            .unwrap()
    }

    async fn release(&self, releases: &[Release], max_open_failures: u32) -> Vec<(String, String)> {
        let (base, channel) = (self.room_base(), self.channel());
        let args = ReleaseArgs {
            room_base: &base,
            now_ms: NOW + 5,
            retention_ms: DAY_MS,
            channel: &channel,
            max_open_failures,
            releases,
        };
        self.scripts
            .release
            .run(&mut self.conn(), &args)
            .await
            .unwrap()
    }

    async fn take_over(&self, now_ms: u64) -> Vec<TakenOver> {
        let base = self.room_base();
        let args = TakeOverArgs {
            room_base: &base,
            now_ms,
            deadline_ms: now_ms + 1_000,
            limit: 10,
            owner: "reaper",
        };
        self.scripts
            .take_over
            .run(&mut self.conn(), &args)
            .await
            .unwrap()
    }

    /// Sets a field of a ticket's hash directly (a corrupt or foreign write).
    async fn poke(&self, id: &TicketId, field: &str, value: &str) {
        let _: () = redis::cmd("HSET")
            .arg(format!("{}:t:{}", self.room_base(), id.as_str()))
            .arg(field)
            .arg(value)
            .query_async(&mut self.conn())
            .await
            .unwrap();
    }

    /// Deletes the test's keys (SCAN, not KEYS: the Redis is shared).
    async fn cleanup(self) {
        let mut conn = self.conn();
        let mut cursor = 0u64;
        loop {
            let (next, keys): (u64, Vec<String>) = redis::cmd("SCAN")
                .arg(cursor)
                .arg("MATCH")
                .arg(format!("{}:*", self.prefix))
                .arg("COUNT")
                .arg(1000)
                .query_async(&mut conn)
                .await
                .unwrap();
            if !keys.is_empty() {
                let _: () = redis::cmd("DEL")
                    .arg(&keys)
                    .query_async(&mut conn)
                    .await
                    .unwrap();
            }
            if next == 0 {
                return;
            }
            cursor = next;
        }
    }
}

fn group(match_id: &str, tickets: &[&TicketId]) -> ClaimGroup {
    ClaimGroup {
        match_id: match_id.into(),
        owner: format!("owner-{match_id}"),
        tickets: tickets.iter().map(|t| t.as_str().to_owned()).collect(),
    }
}

fn bulk(text: &str) -> Value {
    Value::BulkString(text.as_bytes().to_vec())
}

#[tokio::test]
async fn enqueue_queues_recognises_a_retry_and_refuses_a_full_queue() {
    let rig = Rig::new().await;
    let (id, created) = rig.enqueue_at("alice", NOW, DAY_MS, 2).await;
    assert_eq!(created, Created::Queued);
    assert_eq!(
        rig.enqueue_id(&id, "alice", NOW, DAY_MS, 2).await,
        Created::Existed
    );
    assert_eq!(
        rig.enqueue_at("bob", NOW, DAY_MS, 2).await.1,
        Created::Queued
    );
    assert_eq!(
        rig.enqueue_at("carol", NOW, DAY_MS, 2).await.1,
        Created::QueueFull
    );
    rig.cleanup().await;
}

#[tokio::test]
async fn read_answers_missing_waiting_and_seated_tickets() {
    let rig = Rig::new().await;
    assert!(rig.read(&TicketId::new(ROOM)).await.unwrap().is_none());

    let a = rig.enqueue("alice").await;
    let b = rig.enqueue("bob").await;
    let second = rig.read(&b).await.unwrap().unwrap();
    assert_eq!(second.state, TicketState::Waiting);
    assert_eq!((second.position, second.waiting), (2, 2));
    assert_eq!((second.player_id.as_str(), second.rating), ("bob", 2000));
    assert_eq!((second.created_ms, second.expires_ms), (NOW, NOW + DAY_MS));
    assert!(second.seat.is_none());

    assert_eq!(rig.claim(&[group("m1", &[&a, &b])]).await, ["m1"]);
    let players = vec!["alice".to_owned(), "bob".to_owned()];
    let tickets = vec![a.as_str().to_owned(), b.as_str().to_owned()];
    rig.opening(&[Opening {
        match_id: "m1".into(),
        owner: "owner-m1".into(),
        players: players.clone(),
        tickets,
    }])
    .await;
    rig.seat(&[Seating {
        match_id: "m1".into(),
        owner: "owner-m1".into(),
        table_id: "table-1".into(),
        seats: vec![(a.as_str().to_owned(), 0), (b.as_str().to_owned(), 1)],
        players: players.clone(),
    }])
    .await;
    let seated = rig.read(&b).await.unwrap().unwrap();
    assert_eq!(seated.state, TicketState::Seated);
    assert_eq!(seated.position, 0);
    assert_eq!(seated.ended_ms, NOW + 10);
    assert_eq!(seated.average_wait_ms, 10, "20 ms over 2 tickets");
    let seat = seated.seat.unwrap();
    assert_eq!(
        (
            seat.game,
            seat.table_id.as_str(),
            seat.seat,
            seat.match_id.as_str()
        ),
        (&GOMOKU, "table-1", 1, "m1")
    );
    assert_eq!(seat.players, players);
    rig.cleanup().await;
}

#[tokio::test]
async fn read_refuses_a_ticket_it_cannot_read_whole() {
    let rig = Rig::new().await;
    for (field, value) in [
        ("s", "zombie"),
        ("rt", "high"),
        ("c", "-5"),
        ("colour", "red"),
        ("cx", "yes"),
        ("g", "chess"),
        ("tb", "table-without-a-seat"),
    ] {
        let id = rig.enqueue(&format!("p-{field}")).await;
        rig.poke(&id, field, value).await;
        assert!(
            rig.read(&id).await.is_err(),
            "{field} = {value:?} must not read"
        );
    }
    let id = rig.enqueue("no-rating").await;
    let _: () = redis::cmd("HDEL")
        .arg(format!("{}:t:{}", rig.room_base(), id.as_str()))
        .arg("rt")
        .query_async(&mut rig.conn())
        .await
        .unwrap();
    assert!(rig.read(&id).await.is_err(), "a ticket without its rating");
    rig.cleanup().await;
}

#[tokio::test]
async fn cancel_tells_now_requested_already_ended_and_missing_apart() {
    let rig = Rig::new().await;
    assert_eq!(
        rig.cancel(&TicketId::new(ROOM)).await.unwrap(),
        Cancelled::Missing
    );

    let waiting = rig.enqueue("alice").await;
    assert_eq!(rig.cancel(&waiting).await.unwrap(), Cancelled::Now);
    assert_eq!(rig.state(&waiting).await, TicketState::Cancelled);
    assert_eq!(
        rig.cancel(&waiting).await.unwrap(),
        Cancelled::AlreadyEnded(TicketState::Cancelled),
        "a second cancel is not 'cancelled now'"
    );

    let (a, b) = (rig.enqueue("bob").await, rig.enqueue("carol").await);
    rig.claim(&[group("m1", &[&a, &b])]).await;
    assert_eq!(rig.cancel(&a).await.unwrap(), Cancelled::Requested);
    assert!(rig.read(&a).await.unwrap().unwrap().cancel_requested);

    let expired = rig.enqueue("dave").await;
    rig.poke(&expired, "s", "expired").await;
    rig.poke(&expired, "end", "5").await;
    assert_eq!(
        rig.cancel(&expired).await.unwrap(),
        Cancelled::AlreadyEnded(TicketState::Expired)
    );

    let odd = rig.enqueue("erin").await;
    rig.poke(&odd, "s", "zombie").await;
    assert!(
        rig.cancel(&odd).await.is_err(),
        "an unknown state is an error, not a missing ticket"
    );
    rig.cleanup().await;
}

#[tokio::test]
async fn expire_ends_only_tickets_past_their_expiry() {
    let rig = Rig::new().await;
    let (old, _) = rig.enqueue_at("alice", NOW, 10, 100).await;
    let fresh = rig.enqueue("bob").await;
    let (base, channel) = (rig.room_base(), rig.channel());
    let args = ExpireArgs {
        room_base: &base,
        now_ms: NOW + 10,
        limit: 100,
        retention_ms: DAY_MS,
        channel: &channel,
    };
    let expired = rig
        .scripts
        .expire
        .run(&mut rig.conn(), &args)
        .await
        .unwrap();
    assert_eq!(expired, [(old.as_str().to_owned(), "alice".to_owned())]);
    assert_eq!(rig.state(&old).await, TicketState::Expired);
    assert_eq!(rig.state(&fresh).await, TicketState::Waiting);
    assert!(
        rig.scripts
            .expire
            .run(&mut rig.conn(), &args)
            .await
            .unwrap()
            .is_empty()
    );
    rig.cleanup().await;
}

#[tokio::test]
async fn peek_lists_unexpired_waiting_tickets_in_queue_order() {
    let rig = Rig::new().await;
    let a = rig.enqueue("alice").await;
    let (_short, _) = rig.enqueue_at("bob", NOW, 10, 100).await;
    let gone = rig.enqueue("carol").await;
    let c = rig.enqueue("dave").await;
    let _: () = redis::cmd("DEL")
        .arg(format!("{}:t:{}", rig.room_base(), gone.as_str()))
        .query_async(&mut rig.conn())
        .await
        .unwrap();
    let base = rig.room_base();
    let args = PeekArgs {
        room_base: &base,
        limit: 10,
        now_ms: NOW + 10,
    };
    let peeked = rig.scripts.peek.run(&mut rig.conn(), &args).await.unwrap();
    let ids: Vec<&str> = peeked.iter().map(|p| p.ticket_id.as_str()).collect();
    assert_eq!(ids, [a.as_str(), c.as_str()]);
    assert_eq!(peeked[0].player_id, "alice");
    assert_eq!((peeked[0].created_ms, peeked[0].rating), (NOW, 2000));
    // The entry whose hash was gone left the queue.
    let queued: u64 = redis::cmd("ZCARD")
        .arg(format!("{base}:q"))
        .query_async(&mut rig.conn())
        .await
        .unwrap();
    assert_eq!(queued, 3);
    rig.cleanup().await;
}

#[tokio::test]
async fn claim_takes_a_group_whole_or_not_at_all() {
    let rig = Rig::new().await;
    let (a, b, c) = (
        rig.enqueue("alice").await,
        rig.enqueue("bob").await,
        rig.enqueue("carol").await,
    );
    rig.cancel(&c).await.unwrap();
    let claimed = rig
        .claim(&[group("m1", &[&a, &b]), group("m2", &[&a, &c])])
        .await;
    assert_eq!(claimed, ["m1"], "m2 holds a taken and a cancelled ticket");
    assert_eq!(rig.state(&a).await, TicketState::Matching);
    assert!(
        rig.claim(&[group("m3", &[&b])]).await.is_empty(),
        "b is matching in m1"
    );
    rig.cleanup().await;
}

#[tokio::test]
async fn opening_and_seat_act_only_for_the_owner() {
    let rig = Rig::new().await;
    let (a, b) = (rig.enqueue("alice").await, rig.enqueue("bob").await);
    rig.claim(&[group("m1", &[&a, &b])]).await;
    let opening = |owner: &str| Opening {
        match_id: "m1".into(),
        owner: owner.into(),
        players: vec!["alice".into(), "bob".into()],
        tickets: vec![a.as_str().into(), b.as_str().into()],
    };
    assert!(rig.opening(&[opening("intruder")]).await.is_empty());
    assert_eq!(rig.opening(&[opening("owner-m1")]).await, ["m1"]);
    let seating = |owner: &str| Seating {
        match_id: "m1".into(),
        owner: owner.into(),
        table_id: "t".into(),
        seats: vec![(a.as_str().into(), 0), (b.as_str().into(), 1)],
        players: vec!["alice".into(), "bob".into()],
    };
    assert!(rig.seat(&[seating("intruder")]).await.is_empty());
    assert_eq!(rig.state(&a).await, TicketState::Matching);
    assert_eq!(rig.seat(&[seating("owner-m1")]).await, ["m1"]);
    assert_eq!(rig.state(&a).await, TicketState::Seated);
    assert!(
        rig.seat(&[seating("owner-m1")]).await.is_empty(),
        "the claim is gone"
    );
    rig.cleanup().await;
}

#[tokio::test]
async fn take_claims_whole_tables_from_the_head_of_the_queue() {
    let rig = Rig::new().await;
    let ids = [
        rig.enqueue("p1").await,
        rig.enqueue("p2").await,
        rig.enqueue("p3").await,
        rig.enqueue("p4").await,
        rig.enqueue("p5").await,
    ];
    let (base, channel) = (rig.room_base(), rig.channel());
    let tables: Vec<(String, String)> = (1..=3)
        .map(|i| (format!("m{i}"), format!("o{i}")))
        .collect();
    let args = TakeArgs {
        room_base: &base,
        now_ms: NOW + 1,
        deadline_ms: NOW + 1_000,
        channel: &channel,
        seats: 2,
        tables: &tables,
    };
    let taken = rig.scripts.take.run(&mut rig.conn(), &args).await.unwrap();
    assert_eq!(taken.len(), 2, "five tickets fill two tables of two");
    assert_eq!(
        (taken[0].match_id.as_str(), taken[0].owner.as_str()),
        ("m1", "o1")
    );
    let members: Vec<&str> = taken
        .iter()
        .flat_map(|t| t.members.iter().map(|m| m.0.as_str()))
        .collect();
    assert_eq!(
        members,
        ids[..4].iter().map(TicketId::as_str).collect::<Vec<_>>()
    );
    assert_eq!(taken[1].members[1].1, "p4");
    assert_eq!(taken[1].members[1].2, NOW);
    assert_eq!(rig.state(&ids[4]).await, TicketState::Waiting);
    let again = rig.scripts.take.run(&mut rig.conn(), &args).await.unwrap();
    assert!(again.is_empty(), "one ticket is not a table");
    rig.cleanup().await;
}

#[tokio::test]
async fn release_requeues_ends_and_fails_after_repeated_openings() {
    let rig = Rig::new().await;
    let (a, b) = (rig.enqueue("alice").await, rig.enqueue("bob").await);
    let release = |outcomes: [Outcome; 2]| Release {
        match_id: "m1".into(),
        owner: "owner-m1".into(),
        tickets: vec![
            (a.as_str().into(), outcomes[0].clone()),
            (b.as_str().into(), outcomes[1].clone()),
        ],
    };
    rig.claim(&[group("m1", &[&a, &b])]).await;
    // Not the owner: nothing happens.
    let mut foreign = release([Outcome::Requeue, Outcome::Requeue]);
    foreign.owner = "intruder".into();
    assert!(rig.release(&[foreign], 2).await.is_empty());
    assert_eq!(rig.state(&a).await, TicketState::Matching);

    // A failed opening puts both back in place, once.
    let retry = || Outcome::Retry("no table".into());
    assert!(
        rig.release(&[release([retry(), retry()])], 2)
            .await
            .is_empty()
    );
    let back = rig.read(&a).await.unwrap().unwrap();
    assert_eq!((back.state, back.position), (TicketState::Waiting, 1));

    // The second failure reaches the limit of 2: both end FAILED.
    rig.claim(&[group("m1", &[&a, &b])]).await;
    let ended = rig.release(&[release([retry(), retry()])], 2).await;
    assert_eq!(
        ended,
        [
            (a.as_str().to_owned(), "alice".to_owned()),
            (b.as_str().to_owned(), "bob".to_owned())
        ]
    );
    let failed = rig.read(&a).await.unwrap().unwrap();
    assert_eq!(
        (failed.state, failed.message.as_str()),
        (TicketState::Failed, "no table")
    );

    // A refusal ends one ticket REFUSED with the ledger's code; the other goes back.
    let (c, d) = (rig.enqueue("carol").await, rig.enqueue("dave").await);
    rig.claim(&[group("m2", &[&c, &d])]).await;
    let refused = Release {
        match_id: "m2".into(),
        owner: "owner-m2".into(),
        tickets: vec![
            (
                c.as_str().into(),
                Outcome::Refuse {
                    refusal: 3,
                    message: "not enough silver".into(),
                },
            ),
            (d.as_str().into(), Outcome::Requeue),
        ],
    };
    assert_eq!(
        rig.release(&[refused], 2).await,
        [(c.as_str().to_owned(), "carol".to_owned())]
    );
    let c_ticket = rig.read(&c).await.unwrap().unwrap();
    assert_eq!(
        (c_ticket.state, c_ticket.refusal),
        (TicketState::Refused, 3)
    );
    assert_eq!(rig.state(&d).await, TicketState::Waiting);
    rig.cleanup().await;
}

#[tokio::test]
async fn take_over_hands_overdue_claims_to_a_new_owner() {
    let rig = Rig::new().await;
    let (a, b, c, d) = (
        rig.enqueue("alice").await,
        rig.enqueue("bob").await,
        rig.enqueue("carol").await,
        rig.enqueue("dave").await,
    );
    rig.claim(&[group("claimed", &[&a, &b]), group("opened", &[&c, &d])])
        .await;
    rig.opening(&[Opening {
        match_id: "opened".into(),
        owner: "owner-opened".into(),
        players: vec!["dave".into(), "carol".into()],
        tickets: vec![d.as_str().into(), c.as_str().into()],
    }])
    .await;
    assert!(
        rig.take_over(NOW + 999).await.is_empty(),
        "not due before the deadline"
    );
    let mut taken = rig.take_over(NOW + 1_000).await;
    taken.sort_by(|x, y| x.match_id.cmp(&y.match_id));
    assert_eq!(
        taken.len(),
        1,
        "the opened claim's deadline moved on: {taken:?}"
    );
    let claimed = &taken[0];
    assert_eq!(claimed.match_id, "claimed");
    assert!(!claimed.opening);
    assert_eq!(claimed.tickets, [a.as_str(), b.as_str()]);
    assert!(claimed.players.is_empty() && claimed.seat_order.is_empty());
    assert_eq!((claimed.takeovers, claimed.owner.as_str()), (1, "reaper"));

    let later = rig.take_over(NOW + 2_000).await;
    let opened = later.iter().find(|t| t.match_id == "opened").unwrap();
    assert!(opened.opening);
    assert_eq!(opened.players, ["dave", "carol"]);
    assert_eq!(opened.seat_order, [d.as_str(), c.as_str()]);
    assert_eq!(
        later
            .iter()
            .find(|t| t.match_id == "claimed")
            .unwrap()
            .takeovers,
        2
    );
    rig.cleanup().await;
}

#[tokio::test]
async fn reserve_unreserve_and_delete_if_keep_one_live_ticket_per_player() {
    let rig = Rig::new().await;
    let base = rig.player_base("alice");
    let reserve = |request_id: &'static str, ticket: &'static str| ReserveArgs {
        player_base: &base,
        request_id,
        ticket,
        ttl_ms: DAY_MS,
    };
    let scripts = &rig.scripts;
    assert_eq!(
        scripts
            .reserve
            .run(&mut rig.conn(), &reserve("r1", "t1"))
            .await
            .unwrap(),
        Reservation::Reserved
    );
    assert_eq!(
        scripts
            .reserve
            .run(&mut rig.conn(), &reserve("r1", "t9"))
            .await
            .unwrap(),
        Reservation::Replay("t1".into())
    );
    assert_eq!(
        scripts
            .reserve
            .run(&mut rig.conn(), &reserve("r2", "t2"))
            .await
            .unwrap(),
        Reservation::Live("t1".into())
    );
    let unreserve = |ticket: &'static str| UnreserveArgs {
        player_base: &base,
        request_id: "r1",
        ticket,
    };
    assert_eq!(
        scripts
            .unreserve
            .run(&mut rig.conn(), &unreserve("t2"))
            .await
            .unwrap(),
        0
    );
    assert_eq!(
        scripts
            .unreserve
            .run(&mut rig.conn(), &unreserve("t1"))
            .await
            .unwrap(),
        2
    );
    assert_eq!(
        scripts
            .reserve
            .run(&mut rig.conn(), &reserve("r2", "t2"))
            .await
            .unwrap(),
        Reservation::Reserved
    );

    let live = format!("{base}:live");
    let delete = |expected: &'static str| DeleteIfArgs {
        key: &live,
        expected,
    };
    assert!(
        !scripts
            .delete_if
            .run(&mut rig.conn(), &delete("t1"))
            .await
            .unwrap()
    );
    assert!(
        scripts
            .delete_if
            .run(&mut rig.conn(), &delete("t2"))
            .await
            .unwrap()
    );
    assert!(
        !scripts
            .delete_if
            .run(&mut rig.conn(), &delete("t2"))
            .await
            .unwrap()
    );
    rig.cleanup().await;
}

#[tokio::test]
async fn expire_if_renews_a_seat_record_only_while_it_holds_the_expected_seat() {
    let rig = Rig::new().await;
    let key = format!("{}:seat", rig.player_base("alice"));
    let pttl = || async {
        let ms: i64 = redis::cmd("PTTL")
            .arg(&key)
            .query_async(&mut rig.conn())
            .await
            .unwrap();
        ms
    };
    let renew = |expected: &'static str| ExpireIfArgs {
        key: &key,
        expected,
        ttl_ms: DAY_MS,
    };
    let scripts = &rig.scripts;
    // Nothing there: nothing renewed, nothing made.
    assert!(
        !scripts
            .expire_if
            .run(&mut rig.conn(), &renew("gomoku|gt-1|t1"))
            .await
            .unwrap()
    );
    assert_eq!(pttl().await, -2);
    let _: () = redis::cmd("SET")
        .arg(&key)
        .arg("gomoku|gt-1|t1")
        .arg("PX")
        .arg(1000)
        .query_async(&mut rig.conn())
        .await
        .unwrap();
    // Another seat: left alone.
    assert!(
        !scripts
            .expire_if
            .run(&mut rig.conn(), &renew("gomoku|gt-2|t2"))
            .await
            .unwrap()
    );
    assert!(pttl().await <= 1000);
    // The same seat: a new day.
    assert!(
        scripts
            .expire_if
            .run(&mut rig.conn(), &renew("gomoku|gt-1|t1"))
            .await
            .unwrap()
    );
    assert!(pttl().await > DAY_MS as i64 - 60_000);
    rig.cleanup().await;
}

#[test]
fn decoders_refuse_replies_their_scripts_never_give() {
    let scripts = Scripts::new();
    let id = TicketId::new(ROOM);
    let arr = |items: &[&str]| Value::Array(items.iter().map(|t| bulk(t)).collect());

    // read: a head too short, a field without its value.
    assert!(scripts.read.decode(&id, &arr(&["-1", "0"])).is_err());
    assert!(
        scripts
            .read
            .decode(&id, &arr(&["-1", "0", "0", "p"]))
            .is_err()
    );
    assert!(scripts.read.decode(&id, &arr(&["x", "0", "0"])).is_err());
    // enqueue and cancel: words they never say.
    assert!(scripts.enqueue.decode(&bulk("maybe")).is_err());
    assert!(scripts.enqueue.decode(&Value::Int(1)).is_err());
    for bad in [
        arr(&["ended", "waiting"]),
        arr(&["ended", "zombie"]),
        arr(&["gone"]),
        arr(&[]),
        bulk("cancelled"),
    ] {
        assert!(scripts.cancel.decode(&bad).is_err(), "{bad:?}");
    }
    // expire and release: pairs only.
    assert!(scripts.expire.decode(&arr(&["t"])).is_err());
    // peek: records of four, numbers where numbers go.
    assert!(scripts.peek.decode(&arr(&["t", "p", "1"])).is_err());
    assert!(
        scripts
            .peek
            .decode(&Value::Array(vec![
                bulk("t"),
                bulk("p"),
                bulk("1"),
                Value::Nil
            ]))
            .is_err(),
        "a ticket without a rating"
    );
    // claim: only the match ids asked for, once each.
    let groups = [group("m1", &[&id])];
    let claim = ClaimArgs {
        room_base: "b",
        now_ms: 0,
        deadline_ms: 0,
        channel: "c",
        groups: &groups,
    };
    assert!(scripts.claim.decode(&claim, &arr(&["m2"])).is_err());
    assert!(scripts.claim.decode(&claim, &arr(&["m1", "m1"])).is_err());
    assert_eq!(scripts.claim.decode(&claim, &arr(&["m1"])).unwrap(), ["m1"]);
    // take: whole tables of tables asked for.
    let tables = [("m1".to_owned(), "o1".to_owned())];
    let take = TakeArgs {
        room_base: "b",
        now_ms: 0,
        deadline_ms: 0,
        channel: "c",
        seats: 1,
        tables: &tables,
    };
    assert!(
        scripts
            .take
            .decode(&take, &arr(&["m9", "t", "p", "1"]))
            .is_err()
    );
    assert!(scripts.take.decode(&take, &arr(&["m1", "t", "p"])).is_err());
    assert!(
        scripts
            .take
            .decode(&take, &arr(&["m1", "t", "p", "soon"]))
            .is_err()
    );
    // release: only tickets released.
    let releases = [Release {
        match_id: "m1".into(),
        owner: "o".into(),
        tickets: vec![("t1".into(), Outcome::Requeue)],
    }];
    let release = ReleaseArgs {
        room_base: "b",
        now_ms: 0,
        retention_ms: 0,
        channel: "c",
        max_open_failures: 1,
        releases: &releases,
    };
    assert!(
        scripts
            .release
            .decode(&release, &arr(&["t2", "p"]))
            .is_err()
    );
    // take_over: known phases, players exactly when opening, a count of takeovers.
    let take_over = TakeOverArgs {
        room_base: "b",
        now_ms: 0,
        deadline_ms: 0,
        limit: 1,
        owner: "o",
    };
    let record = |phase: &str, players: &str, n: Value| {
        Value::Array(vec![
            bulk("m"),
            bulk(phase),
            bulk("t1,t2"),
            bulk(players),
            bulk(players),
            n,
        ])
    };
    assert!(
        scripts
            .take_over
            .decode(&take_over, &record("claimed", "", Value::Int(1)))
            .is_ok()
    );
    assert!(
        scripts
            .take_over
            .decode(&take_over, &record("seated", "", Value::Int(1)))
            .is_err()
    );
    assert!(
        scripts
            .take_over
            .decode(&take_over, &record("opening", "", Value::Int(1)))
            .is_err()
    );
    assert!(
        scripts
            .take_over
            .decode(&take_over, &record("claimed", "a,b", Value::Int(1)))
            .is_err()
    );
    assert!(
        scripts
            .take_over
            .decode(&take_over, &record("claimed", "", bulk("1")))
            .is_err()
    );
    // reserve: known words, and the ticket asked for when reserved.
    let reserve = ReserveArgs {
        player_base: "b",
        request_id: "r",
        ticket: "t1",
        ttl_ms: 1,
    };
    assert!(
        scripts
            .reserve
            .decode(&reserve, &arr(&["reserved", "t2"]))
            .is_err()
    );
    assert!(
        scripts
            .reserve
            .decode(&reserve, &arr(&["taken", "t1"]))
            .is_err()
    );
    assert!(scripts.reserve.decode(&reserve, &arr(&["live"])).is_err());
    // unreserve and delete_if: counts in range.
    assert!(scripts.unreserve.decode(&Value::Int(3)).is_err());
    assert!(scripts.delete_if.decode(&Value::Int(2)).is_err());
    assert!(scripts.delete_if.decode(&Value::Nil).is_err());
    assert!(scripts.expire_if.decode(&Value::Int(2)).is_err());
    assert!(scripts.expire_if.decode(&Value::Nil).is_err());
}
