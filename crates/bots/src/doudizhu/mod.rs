//! A Dou Dizhu player, as a pure function of what its seat may see: its own hand, the
//! kitty (public once the landlord takes it), every play so far and the card counts.
//! It is deterministic: the same situation always gets the same play, so the dealer may
//! run it inside an atomic step that is re-run after a lost race.
//!
//! What it believes, rule by rule (each tested in `tests/strategy.rs`):
//!
//! - **Plan first.** The hand is split into the combinations that empty it in the fewest
//!   plays while keeping high cards ([`plan`]): pairs, triples and airplanes are not torn,
//!   kickers are real singles and low pairs.
//! - **Leading.** Go out if one play does. If every group but one is a *control* (nothing
//!   still out can beat it without a bomb), play the controls, then the last group.
//!   Otherwise lead the plan's weakest group, longest first; against an opponent holding
//!   one card lead no single (or the highest one), against two cards no pair. A farmer
//!   whose partner holds one card leads its lowest single (two cards: its lowest pair).
//! - **Beating an opponent.** Among the non-bomb replies take the one that leaves the best
//!   plan; play it when the plan does not lose more than winning the trick is worth, which
//!   grows as the opponent runs out of cards (so a 2 or a joker is spent on the landlord's
//!   singles: it ends a run of them). Against an opponent with one or two cards play a
//!   reply it cannot beat, or the highest. Bombs and the rocket are spent only when they
//!   decide the deal: the opponent is close to going out, or the rest of the hand runs
//!   out after it.
//! - **The partner's trick.** Let it stand, except: the second farmer (who plays just
//!   before the landlord) covers a card the landlord could go out over, with a reply the
//!   landlord cannot beat (or the highest); and a farmer whose hand then runs out takes the
//!   lead (the stronger farmer leads).
//! - **Bidding** from the plan of the 17 cards: how few plays it needs and how many
//!   controls (jokers, 2s, bombs) it holds ([`bid`]).
//!
//! Every play is taken from the rule crate's [`legal_plays`]; nothing here judges a rule.
//! The previous strategy is kept as [`baseline`] to measure against.

pub mod baseline;
pub mod knowledge;
pub mod plan;

use doudizhu_rules::{
    Bid, CardSet, Choice, Combination, Kind, Play, Rank, RankCounts, Reading, Seat, SeatView,
    WildPlay, classify, legal_plays, wild_plays,
};
use rand::Rng;

use knowledge::Knowledge;
use plan::{Group, Plan, Planner};

/// What one seat knows when it is its turn to play.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Situation {
    /// The seat deciding.
    pub seat: Seat,
    /// Its cards, as ranks.
    pub hand: RankCounts,
    /// The landlord (地主).
    pub landlord: Seat,
    /// The kitty the landlord took (public since the landlord was chosen). Its cards the
    /// landlord has not played are among the cards still out; the current rules need no
    /// more than that.
    pub kitty: RankCounts,
    /// Every play of the deal so far, in order (passes left out).
    pub plays: Vec<(Seat, RankCounts)>,
    /// The play to beat and who made it; `None` when this seat leads.
    pub to_beat: Option<(Seat, Combination)>,
    /// Cards left in each seat's hand.
    pub cards_left: [u8; 3],
}

impl Situation {
    /// The situation after `turns` (each a play, or `None` for a pass, from the
    /// landlord's first lead on): who must be beaten and every seat's card count follow
    /// from them. `None` if a play is not a combination.
    pub fn from_turns(
        seat: Seat,
        hand: RankCounts,
        landlord: Seat,
        kitty: RankCounts,
        turns: &[(Seat, Option<RankCounts>)],
    ) -> Option<Situation> {
        let mut cards_left = [17u8; 3];
        cards_left[landlord.index()] = 20;
        let mut plays = Vec::new();
        let mut trick: Option<(Seat, Combination)> = None;
        let mut passes = 0;
        for (who, cards) in turns {
            match cards {
                Some(ranks) => {
                    trick = Some((*who, classify(ranks)?));
                    passes = 0;
                    let left = &mut cards_left[who.index()];
                    *left = left.checked_sub(u8::try_from(ranks.len()).ok()?)?;
                    plays.push((*who, *ranks));
                }
                None => {
                    passes += 1;
                    if passes == 2 {
                        trick = None;
                        passes = 0;
                    }
                }
            }
        }
        Some(Situation {
            seat,
            hand,
            landlord,
            kitty,
            plays,
            to_beat: trick,
            cards_left,
        })
    }

    /// The situation of the seat whose view this is, in the play phase.
    pub fn from_view(view: &SeatView) -> Option<Situation> {
        let landlord = view.landlord?.seat;
        let ranks = |cards: &[doudizhu_rules::Card]| {
            cards
                .iter()
                .copied()
                .collect::<doudizhu_rules::CardSet>()
                .rank_counts()
        };
        let plays = view
            .turns
            .iter()
            .filter(|t| !t.cards.is_empty())
            .map(|t| (t.seat, ranks(&t.cards)))
            .collect();
        let to_beat = match &view.trick {
            Some(t) => Some((
                t.seat,
                t.combination.or_else(|| classify(&ranks(&t.cards)))?,
            )),
            None => None,
        };
        Some(Situation {
            seat: view.seat,
            hand: ranks(&view.hand),
            landlord,
            kitty: ranks(view.kitty.as_deref().unwrap_or_default()),
            plays,
            to_beat,
            cards_left: view.cards_left,
        })
    }

    /// The other farmer, for a farmer.
    pub fn partner(&self) -> Option<Seat> {
        (self.seat != self.landlord).then(|| {
            Seat::ALL
                .into_iter()
                .find(|&s| s != self.seat && s != self.landlord)
                .expect("three seats")
        })
    }

    fn is_opponent(&self, other: Seat) -> bool {
        other != self.seat && (self.seat == self.landlord || other == self.landlord)
    }

    /// Card counts of the seats playing against this one.
    fn opponent_cards(&self) -> impl Iterator<Item = u8> + '_ {
        Seat::ALL
            .into_iter()
            .filter(|&s| self.is_opponent(s))
            .map(|s| self.cards_left[s.index()])
    }

    /// The fewest cards an opponent holds.
    fn threat(&self) -> u8 {
        self.opponent_cards().min().unwrap_or(u8::MAX)
    }

    /// The most cards an opponent holds.
    fn opponents_max(&self) -> u8 {
        self.opponent_cards().max().unwrap_or(0)
    }
}

/// The bot as the dealer's auto-play (托管) for a seat: its play for the seat's view.
/// Bidding stays the rule crate's (a pass): auto-play never raises a player's stakes.
#[derive(Debug, Clone, Copy, Default)]
pub struct AutoPlay;

impl doudizhu_rules::AutoPlayer for AutoPlay {
    fn choose(&self, view: &SeatView) -> Option<Choice> {
        let situation = Situation::from_view(view)?;
        match view.wild_rank {
            Some(wild) => {
                let trick = view.trick.as_ref().and_then(|t| {
                    Some(Reading {
                        combination: t.combination?,
                        bomb: t.bomb,
                    })
                });
                play_wild(&situation, trick.as_ref(), wild)
            }
            None => play(&situation).map(Choice::from),
        }
    }
}

/// The platform's bot in a seat of its own (a friends' table's bot seat): it plays as
/// [`AutoPlay`] does and, unlike auto-play, decides from the seat's cards: it bids
/// ([`bid`]), calls ([`call`]), robs ([`rob`]), doubles ([`double`]) and shows
/// ([`show`]).
pub struct BotSeat;

fn hand_of(view: &SeatView) -> RankCounts {
    view.hand.iter().copied().collect::<CardSet>().rank_counts()
}

impl doudizhu_rules::AutoPlayer for BotSeat {
    fn choose(&self, view: &SeatView) -> Option<Choice> {
        AutoPlay.choose(view)
    }

    fn call(&self, view: &SeatView) -> bool {
        call(&hand_of(view))
    }

    fn rob(&self, view: &SeatView) -> bool {
        rob(&hand_of(view))
    }

    fn double(&self, view: &SeatView) -> bool {
        let landlord = view.landlord.is_some_and(|l| l.seat == view.seat);
        double(&hand_of(view), landlord, view.rule_set.has_wilds())
    }

    fn show(&self, view: &SeatView) -> bool {
        show(&hand_of(view))
    }

    fn bid(&self, view: &SeatView) -> Bid {
        let hand = hand_of(view);
        let highest = view
            .bids
            .iter()
            .map(|b| b.bid)
            .max_by_key(|b| b.points())
            .unwrap_or(Bid::Pass);
        bid(&hand, highest)
    }
}

/// What to play, or `None` to pass.
pub fn play(s: &Situation) -> Option<RankCounts> {
    let plays = legal_plays(&s.hand, s.to_beat.map(|(_, c)| c).as_ref());
    if plays.is_empty() {
        return None;
    }
    if let Some(out) = plays.iter().find(|p| p.ranks.len() == s.hand.len()) {
        return Some(out.ranks);
    }
    let mut decider = Decider {
        s,
        know: Knowledge::of(s),
        planner: Planner::new(),
        plays: &plays,
    };
    let chosen = match s.to_beat {
        None => decider.lead(),
        Some((owner, trick)) if s.is_opponent(owner) => decider.beat_opponent(owner, trick),
        Some((_, trick)) => decider.follow_partner(trick),
    };
    // Only ever a play the rule crate listed; a leader always plays.
    let listed = chosen.and_then(|ranks| plays.iter().find(|p| p.ranks == ranks));
    match (listed, s.to_beat) {
        (Some(p), _) => Some(p.ranks),
        (None, None) => Some(plays[0].ranks),
        (None, Some(_)) => None,
    }
}

/// What a wild card kept in hand is worth to [`play_wild`], in [`hand_strength`]'s
/// units: about a 2's.
const WILD_KEPT: i32 = 4;

/// The play in a laizi (癞子) deal, among the rule crate's [`wild_plays`]: go out if one
/// play does; else the classic strategy's choice, its cards read as themselves, when that
/// is legal here; else, when leading or when an opponent is close to going out, the play
/// that leaves the strongest hand (a wild card kept counts as [`WILD_KEPT`]); else pass.
///
/// `trick` is the reading of the play to beat (`None` when leading); `s.to_beat` holds
/// its combination.
pub fn play_wild(s: &Situation, trick: Option<&Reading>, wild: Rank) -> Option<Choice> {
    let plays = wild_plays(&s.hand, wild, trick);
    let choice = |p: &WildPlay| Choice {
        cards: p.cards,
        meant: Some(p.meant),
    };
    if let Some(out) = plays.iter().find(|p| p.cards.len() == s.hand.len()) {
        return Some(choice(out));
    }
    if let Some(ranks) = play(s) {
        let as_themselves = plays
            .iter()
            .find(|p| p.cards == ranks && p.meant == ranks)
            .or_else(|| plays.iter().find(|p| p.cards == ranks));
        if let Some(p) = as_themselves {
            return Some(choice(p));
        }
    }
    let must_play = s.to_beat.is_none();
    let urgent = s
        .to_beat
        .is_some_and(|(owner, _)| s.is_opponent(owner) && s.threat() <= 4);
    if !(must_play || urgent) {
        return None;
    }
    plays
        .iter()
        .max_by_key(|p| {
            let rest = s.hand.checked_sub(&p.cards).unwrap_or_default();
            hand_strength(&rest) + WILD_KEPT * i32::from(rest.count(wild))
        })
        .map(choice)
}

struct Decider<'a> {
    s: &'a Situation,
    know: Knowledge,
    planner: Planner,
    plays: &'a [Play],
}

impl Decider<'_> {
    /// Whether nothing an opponent may hold beats `group` (bombs aside).
    fn is_control(&self, group: &Group) -> bool {
        !self.know.beatable(group, self.s.opponents_max())
    }

    /// Plays the rest of `plan` cannot run out with: groups that are not controls, less
    /// one (the last play needs no control).
    fn loose_groups(&self, plan: &Plan) -> usize {
        let loose = plan.groups.iter().filter(|g| !self.is_control(g)).count();
        loose.saturating_sub(1)
    }

    /// Whether the hand `rest` runs out once this seat has the lead.
    fn runs_out(&mut self, rest: &RankCounts) -> bool {
        let plan = self.planner.plan(rest);
        self.loose_groups(&plan) == 0
    }

    fn lowest_of_kind(&self, kind: Kind) -> Option<RankCounts> {
        self.plays
            .iter()
            .filter(|p| p.combination.kind == kind)
            .min_by_key(|p| p.combination.rank)
            .map(|p| p.ranks)
    }

    fn lead(&mut self) -> Option<RankCounts> {
        let s = self.s;
        let plan = self.planner.plan(&s.hand);
        // A winning run: controls first (bombs last), the one loose group at the end.
        if self.loose_groups(&plan) == 0 {
            let controls: Vec<&Group> = plan.groups.iter().filter(|g| self.is_control(g)).collect();
            let first = controls
                .iter()
                .filter(|g| !g.is_bomb())
                .max_by_key(|g| g.card_count())
                .or_else(|| controls.first())
                .copied()
                .or_else(|| plan.groups.first());
            if let Some(g) = first {
                return Some(g.ranks());
            }
        }
        // Feed a partner about to go out.
        if let Some(partner) = s.partner() {
            let wanted = match s.cards_left[partner.index()] {
                1 => Some(Kind::Single),
                2 => Some(Kind::Pair),
                _ => None,
            };
            if let Some(ranks) = wanted.and_then(|k| self.lowest_of_kind(k)) {
                return Some(ranks);
            }
        }
        let threat = s.threat();
        let danger = |g: &Group| match g.kind {
            Kind::Single => threat == 1,
            Kind::Pair => threat == 2,
            _ => false,
        };
        // The weakest safe group; controls are kept for later, bombs too.
        let pool: Vec<&Group> = if plan.groups.iter().all(Group::is_bomb) {
            plan.groups.iter().collect()
        } else {
            plan.groups.iter().filter(|g| !g.is_bomb()).collect()
        };
        let best = pool.iter().min_by_key(|g| {
            (
                danger(g),
                self.is_control(g),
                g.value(),
                std::cmp::Reverse(g.card_count()),
            )
        })?;
        if danger(best) {
            // Only dangerous singles (or pairs) left: the highest, to make it hard.
            return pool.iter().max_by_key(|g| g.top()).map(|g| g.ranks());
        }
        Some(best.ranks())
    }

    /// The non-bomb reply leaving the best plan, with how much the plan changes.
    fn best_reply(&mut self) -> Option<(i32, RankCounts)> {
        let base = self.planner.plan(&self.s.hand).score;
        let mut best: Option<(i32, Rank, RankCounts)> = None;
        for p in self.plays.iter().filter(|p| !p.combination.kind.doubles()) {
            let rest = self
                .s
                .hand
                .checked_sub(&p.ranks)
                .expect("a play from the hand");
            let delta = self.planner.plan(&rest).score - base;
            let better = best
                .as_ref()
                .is_none_or(|(d, r, _)| delta > *d || (delta == *d && p.combination.rank < *r));
            if better {
                best = Some((delta, p.combination.rank, p.ranks));
            }
        }
        best.map(|(d, _, ranks)| (d, ranks))
    }

    /// The lowest non-bomb reply nothing out can beat, else the highest non-bomb reply.
    fn strongest_reply(&self) -> Option<RankCounts> {
        let holders = self.s.opponents_max();
        let ordinary = || self.plays.iter().filter(|p| !p.combination.kind.doubles());
        ordinary()
            .filter(|p| {
                let c = p.combination;
                !self.know.beatable_play(c.kind, c.rank, c.length, holders)
            })
            .min_by_key(|p| p.combination.rank)
            .or_else(|| ordinary().max_by_key(|p| p.combination.rank))
            .map(|p| p.ranks)
    }

    /// The smallest bomb (the rocket last).
    fn smallest_bomb(&self) -> Option<RankCounts> {
        self.plays
            .iter()
            .filter(|p| p.combination.kind.doubles())
            .min_by_key(|p| (p.combination.kind == Kind::Rocket, p.combination.rank))
            .map(|p| p.ranks)
    }

    fn beat_opponent(&mut self, _owner: Seat, _trick: Combination) -> Option<RankCounts> {
        let threat = self.s.threat();
        if threat <= 2 {
            if let Some(ranks) = self.strongest_reply() {
                return Some(ranks);
            }
        } else if let Some((delta, ranks)) = self.best_reply() {
            // What taking the lead is worth, more as the opponents run out of cards.
            let lead_worth = match threat {
                3 | 4 => 14,
                5 | 6 => 9,
                _ => 4,
            };
            if delta + lead_worth >= 0 {
                return Some(ranks);
            }
        }
        let bomb = self.smallest_bomb()?;
        let rest = self
            .s
            .hand
            .checked_sub(&bomb)
            .expect("a play from the hand");
        (threat <= 4 || self.runs_out(&rest)).then_some(bomb)
    }

    fn follow_partner(&mut self, trick: Combination) -> Option<RankCounts> {
        let s = self.s;
        let landlord_cards = s.cards_left[s.landlord.index()];
        let landlord_next = s.seat.next() == s.landlord;
        // The stronger farmer takes the lead with a play the landlord cannot beat, when
        // the rest of its hand then runs out.
        let unbeatable: Vec<RankCounts> = self
            .plays
            .iter()
            .filter(|p| {
                let c = p.combination;
                !c.kind.doubles()
                    && !self
                        .know
                        .beatable_play(c.kind, c.rank, c.length, landlord_cards)
            })
            .map(|p| p.ranks)
            .collect();
        for ranks in unbeatable {
            let rest = s.hand.checked_sub(&ranks).expect("a play from the hand");
            if self.runs_out(&rest) {
                return Some(ranks);
            }
        }
        if !landlord_next {
            return None;
        }
        let partner_safe =
            !self
                .know
                .beatable_play(trick.kind, trick.rank, trick.length, landlord_cards);
        let could_go_out = landlord_cards <= 2 || usize::from(landlord_cards) == trick.card_count();
        if partner_safe || !could_go_out {
            return None;
        }
        self.strongest_reply().or_else(|| {
            if landlord_cards <= 2 {
                self.smallest_bomb()
            } else {
                None
            }
        })
    }
}

/// The hand's strength for bidding: how many plays its best plan needs (fewer is
/// stronger) and its controls (jokers, 2s, bombs).
pub fn hand_strength(hand: &RankCounts) -> i32 {
    let plan = plan::best_plan(*hand.counts());
    let controls: i32 = Rank::ALL
        .iter()
        .map(|&r| {
            let n = i32::from(hand.count(r));
            match r {
                Rank::BigJoker => 4 * n,
                Rank::SmallJoker => 3 * n,
                Rank::Two => 2 * n,
                Rank::Ace => n / 2,
                _ => 0,
            }
        })
        .sum::<i32>()
        + plan.groups.iter().filter(|g| g.kind == Kind::Bomb).count() as i32 * 4;
    controls * 2 - plan.turns() as i32 * 2 + plan.score / 4
}

/// The bid for `hand` (17 cards, before the kitty) when `highest` is the best bid so far
/// (`Bid::Pass` if none).
pub fn bid(hand: &RankCounts, highest: Bid) -> Bid {
    let strength = hand_strength(hand);
    let wanted = if strength >= BID_THREE {
        Bid::Three
    } else if strength >= BID_TWO {
        Bid::Two
    } else if strength >= BID_ONE {
        Bid::One
    } else {
        Bid::Pass
    };
    if wanted.points() > highest.points() {
        wanted
    } else {
        Bid::Pass
    }
}

/// Whether to call the landlord (叫地主) with `hand` (17 cards) in the rule sets that
/// call and rob: when the hand would bid at all.
pub fn call(hand: &RankCounts) -> bool {
    hand_strength(hand) >= BID_ONE
}

/// Whether to rob (抢地主, × 2) with `hand` (17 cards): when the hand would bid 3 (a
/// rob is contested: another seat wanted the landlord too, so only a strong hand pays).
pub fn rob(hand: &RankCounts) -> bool {
    hand_strength(hand) >= BID_THREE
}

/// Whether to double (加倍): a farmer (17 cards) when its hand would bid 3 on its own
/// (with wild cards in play, which favour the landlord's 20 cards, a stronger hand); the
/// landlord (20 cards, the kitty taken) when its plan is short and held by controls.
pub fn double(hand: &RankCounts, landlord: bool, wilds: bool) -> bool {
    let strength = hand_strength(hand);
    if landlord {
        strength >= LANDLORD_DOUBLE
    } else if wilds {
        strength >= FARMER_DOUBLE_WILD
    } else {
        strength >= BID_THREE
    }
}

/// Whether the landlord (20 cards) shows its hand (明牌, × 2): only a hand that hardly
/// needs hiding, whose plan goes out in few plays with controls to spare.
pub fn show(hand: &RankCounts) -> bool {
    hand_strength(hand) >= LANDLORD_SHOW
}

/// [`hand_strength`] of the landlord's 20 cards above which it doubles, and shows.
const LANDLORD_DOUBLE: i32 = -4;
/// [`hand_strength`] of a farmer's 17 cards above which it doubles in `laizi`.
const FARMER_DOUBLE_WILD: i32 = -4;
const LANDLORD_SHOW: i32 = 4;

/// [`hand_strength`] thresholds of the bids (measured: see the crate README).
const BID_ONE: i32 = -24;
const BID_TWO: i32 = -17;
const BID_THREE: i32 = -10;

/// A uniformly random bid among those allowed.
pub fn random_bid<R: Rng + ?Sized>(highest: Bid, rng: &mut R) -> Bid {
    baseline::random_bid(highest, rng)
}

/// A uniformly random legal play, or a pass (one choice among the plays) when following.
pub fn random_play<R: Rng + ?Sized>(
    hand: &RankCounts,
    to_beat: Option<&Combination>,
    rng: &mut R,
) -> Option<RankCounts> {
    baseline::random_play(hand, to_beat, rng)
}
