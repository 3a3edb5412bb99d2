"""OpenSpiel's MCTS measured by retro's evaluator: how often does each simulation budget
keep the value of the position (a win stays a win, a draw a draw)?

Each budget is an agent for ``retro evaluate`` (a function of the observation and the
legal actions): it rebuilds the position from the observation's ``notation``, hands it
to OpenSpiel's ``MCTSBot`` (UCT with random rollouts, over the game as ``import
retro.env`` registers it) and plays the move the search chooses. The database then
judges every move, against the perfect player and against random play.

    python examples/mcts.py --game six-mens-morris --budgets 10 100 1000 --games 10
    python examples/mcts.py --game three-musketeers --variant 4x4 --plot docs/img

Needs ``pip install 'retro[rl]'`` and the game's database (``retro build --game ...``).
Prints a table, and with ``--json`` the evaluator's whole report per budget.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np


def mcts_agent(game_name: str, variant: str | None, budget: int, *, seed: int = 0,
               rollout_plies: int = 200):
    """An agent playing OpenSpiel's MCTS move with ``budget`` simulations a move."""
    import pyspiel
    from open_spiel.python.algorithms import mcts

    from retro import games
    from retro.env.openspiel_env import short_name

    retro_game = games.get(game_name, variant)
    params = {"max_plies": rollout_plies}
    if variant is not None:
        params["variant"] = retro_game.variant
    game = pyspiel.load_game(short_name(retro_game.name), params)
    rng = np.random.RandomState(seed)
    bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=budget,
                       evaluator=mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng),
                       random_state=rng, solve=True)

    def agent(observation, legal_actions):
        state = game.new_initial_state()
        state.position = retro_game.parse(observation["notation"])  # a rollout's horizon counts from here
        return bot.step(state)

    return agent


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="six-mens-morris")
    parser.add_argument("--variant")
    parser.add_argument("--db", help="database file (default: found as retro probe finds it)")
    parser.add_argument("--budgets", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--games", type=int, default=10, help="games against each opponent")
    parser.add_argument("--max-plies", type=int, default=200, help="a game stops (a draw) after this many plies")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", metavar="FILE", help="write every report to FILE")
    parser.add_argument("--plot", metavar="DIR", help="write a chart of the value kept per budget")
    args = parser.parse_args(argv)

    import retro
    from retro import games
    from retro.env.evaluate import evaluate

    from retro.errors import DatabaseError
    from retro.outputs import check_output, check_output_folder, write_atomically

    try:
        if args.json:  # before the hours of play: a bad output is one line now
            check_output(args.json, "--json")
        if args.plot:
            check_output_folder(args.plot, "--plot")
        game = games.get(args.game, args.variant)
        db = retro.open_database(args.db, game=game)
    except (DatabaseError, ValueError) as error:  # no such game or file: one line, exit 2
        parser.exit(2, f"mcts.py: error: {error}\n")
    reports = {}
    print(f"{game.full_name}: OpenSpiel MCTS (UCT, random rollouts), {args.games} games against each opponent")
    print(f"{'budget':>7}  {'opponent':<8} {'kept':>7} {'moves':>6}  {'at stake':>8} {'moves':>6}  "
          f"{'won':>3} {'drew':>4} {'lost':>4}  {'first thrown':>12}  {'s/move':>7}")
    with db:
        for budget in args.budgets:
            agent = mcts_agent(game.name, args.variant, budget, seed=args.seed, rollout_plies=args.max_plies)
            started = time.perf_counter()
            report = evaluate(agent, db, games=args.games, seed=args.seed, max_plies=args.max_plies)
            seconds = time.perf_counter() - started
            moves = sum(row["moves"] for row in report["opponents"].values())
            report["seconds"] = round(seconds, 1)
            report["seconds_per_move"] = round(seconds / max(moves, 1), 4)
            reports[budget] = report
            for opponent, row in report["opponents"].items():
                r, first = row["results"], row["first_thrown"]
                thrown = "-" if first["mean_ply"] is None else f"{first['mean_ply']:.1f}"
                stake = row["at_stake"]
                held = "-" if stake["kept"] is None else f"{100 * stake['kept']:.1f}%"
                print(f"{budget:>7}  {opponent:<8} {100 * row['kept']:>6.1f}% {row['moves']:>6}  "
                      f"{held:>8} {stake['moves']:>6}  {r['win']:>3} {r['draw']:>4} {r['loss']:>4}  "
                      f"{thrown:>12}  {report['seconds_per_move']:>7.3f}", flush=True)
    if args.json:
        write_atomically(json.dumps({"game": game.full_name, "budgets": reports}, indent=2).encode(),
                         args.json)
    if args.plot:
        print(f"wrote {plot(game.full_name, reports, args.plot)}")
    return 0


def plot(title: str, reports: dict, directory) -> str:
    """A bar chart: per budget and opponent, the share of the moves from a won or drawn
    position that kept its value (from a lost one, every move keeps it)."""
    import matplotlib

    from retro.outputs import make_output_folder, save_figure

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    budgets = list(reports)
    opponents = list(next(iter(reports.values()))["opponents"])
    figure, axes = plt.subplots(figsize=(6, 3.2))
    width = 0.8 / len(opponents)
    for k, opponent in enumerate(opponents):
        kept = [100 * (reports[b]["opponents"][opponent]["at_stake"]["kept"] or 0) for b in budgets]
        axes.bar(np.arange(len(budgets)) + k * width, kept, width, label=f"against {opponent} play")
    axes.set_xticks(np.arange(len(budgets)) + width * (len(opponents) - 1) / 2,
                    [f"{b:,} simulations" for b in budgets])
    axes.set_ylabel("won or drawn positions kept (%)")
    axes.set_title(f"OpenSpiel MCTS on {title}")
    axes.legend(loc="upper left", fontsize="small")
    axes.set_ylim(0, 115)  # room for the legend above the bars
    axes.set_yticks(range(0, 101, 20))
    figure.tight_layout()
    out = make_output_folder(directory, "--plot") / f"mcts-{title.replace(' ', '-')}.png"
    try:
        save_figure(figure, out, dpi=100)
    finally:
        plt.close(figure)
    return str(out)


if __name__ == "__main__":
    sys.exit(main())
