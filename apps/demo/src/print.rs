//! What the demo shows as the bots play: the Gomoku board after each stone, the Dou
//! Dizhu hands, bids and tricks, the settlements.

use gamehub_drive as drive;
use gamehub_proto::doudizhu as ddz;
use gamehub_proto::gomoku as gm;
use gamehub_render as render;

/// Follows one Gomoku seat's updates into `board` and prints the game as it goes.
pub fn print_gomoku(board: &mut gm::Game, update: drive::gomoku::Update<'_>) {
    use gm::table_event::Kind;
    match update {
        drive::gomoku::Update::Table(table) => {
            if let Some(game) = &table.game {
                *board = game.clone();
            }
        }
        drive::gomoku::Update::Event(event) => match &event.kind {
            Some(Kind::GameStarted(started)) => {
                *board = gm::Game::default();
                println!(
                    "game {} starts; seat {} plays black",
                    event.game_number, started.black_seat
                );
            }
            Some(Kind::StonePlaced(placed)) => {
                if let Some(stone) = &placed.stone {
                    board.stones.push(stone.clone());
                    board.last_move = Some(stone.clone());
                    board.forbidden_points.clear();
                    let color = if stone.color() == gm::Color::Black {
                        "black"
                    } else {
                        "white"
                    };
                    let at = stone.point.as_ref().map(|p| p.text.as_str()).unwrap_or("?");
                    println!(
                        "\nmove {}: {color} {at}\n{}",
                        stone.ply,
                        render::gomoku_board(board)
                    );
                }
            }
            Some(Kind::Swapped(s)) => println!("seat {} swaps colors", s.seat),
            Some(Kind::FifthProposed(f)) => println!(
                "black proposes {}",
                f.points
                    .iter()
                    .map(|p| p.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" and ")
            ),
            Some(Kind::GameOver(over)) => {
                if let Some(r) = &over.result {
                    println!("game over: {}", r.description);
                }
            }
            Some(Kind::GameSettled(_)) => println!("the ledger settled the game"),
            _ => {}
        },
    }
}

/// Prints one Dou Dizhu seat's hand and, for `print_table`, the table's bids, plays and
/// result (nothing unless `verbose`).
pub fn print_doudizhu(
    verbose: bool,
    print_table: bool,
    me: &str,
    names: &[String],
    update: drive::doudizhu::Update<'_>,
) {
    if !verbose {
        return;
    }
    use ddz::table_event::Kind;
    match update {
        drive::doudizhu::Update::Table(table) => {
            if !table.hand.is_empty() {
                println!("{me}'s hand: {}", render::hand(&table.hand));
            }
        }
        drive::doudizhu::Update::Event(event) => {
            if let Some(Kind::HandDealt(dealt)) = &event.kind {
                println!("{me}'s hand: {}", render::hand(&dealt.cards));
            }
            if !print_table {
                return;
            }
            let name = |seat: i32| render::seat_name(names, seat);
            match &event.kind {
                Some(Kind::DealStarted(d)) => println!(
                    "deal {} dealt; commitment {}; {} bids first",
                    event.deal_number,
                    d.commitment,
                    name(d.first_bidder)
                ),
                Some(Kind::BidMade(b)) => {
                    if let Some(bid) = &b.bid {
                        if bid.points == 0 {
                            println!("{} passes (不叫)", name(bid.seat));
                        } else {
                            println!("{} bids {}", name(bid.seat), bid.points);
                        }
                    }
                }
                Some(Kind::LandlordChosen(l)) => println!(
                    "{} is the landlord at {}; kitty {}",
                    name(l.seat),
                    l.points,
                    render::hand(&l.kitty)
                ),
                Some(Kind::Played(p)) => {
                    if let Some(turn) = &p.turn {
                        println!("  {}   [{} left]", render::turn(turn, names), p.cards_left);
                    }
                }
                Some(Kind::Passed(p)) => {
                    let turn = ddz::Turn {
                        seat: p.seat,
                        by: p.by,
                        ..ddz::Turn::default()
                    };
                    println!("  {}", render::turn(&turn, names));
                }
                Some(Kind::MultiplierChanged(m)) => println!("  multiplier now ×{}", m.multiplier),
                Some(Kind::DealEnded(e)) => {
                    if let Some(r) = &e.result {
                        let mut extra = String::new();
                        if r.spring {
                            extra.push_str(", spring (春天)");
                        }
                        if r.anti_spring {
                            extra.push_str(", anti-spring (反春)");
                        }
                        println!(
                            "deal over: {:?}, multiplier ×{}{extra}; points {:?}",
                            r.outcome(),
                            r.multiplier,
                            r.points
                        );
                    }
                }
                Some(Kind::DealSettled(s)) => {
                    for seat in &s.seats {
                        println!(
                            "  {:<14} points {:+}, silver {:+}",
                            seat.player_id, seat.points_delta, seat.silver_delta
                        );
                    }
                }
                _ => {}
            }
        }
    }
}
