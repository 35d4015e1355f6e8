"""The `convstate` command: a thin layer over the library."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import re
import signal
import sys
from contextlib import ExitStack
from datetime import datetime
from functools import partial
from importlib import resources
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from . import __version__
from .delta import delta_model
from .errors import ConfigError, ConvStateError, DataError
from .extract import Extractor, RuleExtractor
from .jsonfile import read_json
from .memory import ConversationMemory
from .registry import EXTRACTORS, FORMATS
from .render import render
from .state import ConversationState
from .store import open_store
from .store.base import CompactionRecord
from .store.sqlite import InMemoryStore, SQLiteStore
from .tokens import DEFAULT_COUNT
from .window import BLOCK_SHARE, KEEP_RECENT_TURNS, MIN_WINDOW, TARGET_RATIO, TRIGGER_RATIO


def _console() -> Console:
    # Turn text is data: rich must not read "[assistant]" or "[bold]" in it as markup.
    return Console(highlight=False, markup=False)


def _advance(progress: Any, task: Any, done: int) -> None:
    progress.update(task, completed=done)


def load_demo(lang: str) -> dict[str, Any]:
    """The built-in after-sales conversation: {"system_prompt": ..., "messages": [...]}."""
    text = resources.files("convstate").joinpath(f"data/demo_{lang}.json").read_text("utf-8")
    demo: dict[str, Any] = json.loads(text)
    return demo


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `convstate` command."""
    parser = _parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "run"):
        parser.print_help()
        return 2
    try:
        code: int = args.run(args)
        return code
    except ConvStateError as exc:
        # one line whatever the terminal's width: scripts read it, people grep it
        Console(stderr=True, soft_wrap=True).print(
            Text("error: ", style="red") + Text(" ".join(str(exc).split())), highlight=False)
        return 1


class _DefaultsShown(argparse.ArgumentDefaultsHelpFormatter):
    """Help that says each option's default, where it has one to say."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default in (None, False, argparse.SUPPRESS):
            return action.help
        return super()._get_help_string(action)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="convstate", description=__doc__)
    p.add_argument("--version", action="version", version=f"convstate {__version__}")
    sub = p.add_subparsers(metavar="COMMAND")
    # every subcommand's --help shows the defaults
    sub.add_parser = partial(sub.add_parser,  # type: ignore[method-assign]
                             formatter_class=_DefaultsShown)

    demo = sub.add_parser("demo", help="fold the built-in after-sales conversation offline")
    demo.add_argument("--lang", choices=("zh", "en"), default="zh",
                      help="the conversation's language")
    demo.add_argument("--window", type=int, default=1200, help="context window in tokens")
    demo.add_argument("--keep", type=int, default=KEEP_RECENT_TURNS,
                      help="recent user turns kept raw")
    demo.add_argument("--format", choices=FORMATS.names(), default="text",
                      help="how the state block is written")
    demo.add_argument("--llm", default=None, metavar="local|URL",
                      help="extract with an LLM too (hybrid): 'local' starts the bundled "
                           "model, or an OpenAI-compatible base URL")
    demo.add_argument("--model", default=None, help="model name for --llm URL")
    demo.add_argument("--store", default="convstate-demo.db",
                      help="the SQLite file the demo writes (open it with convstate inspect)")
    demo.add_argument("--json", action="store_true", help="print the state JSON too")
    demo.set_defaults(run=_demo)

    serve = sub.add_parser("serve-local", help="serve the bundled SmolLM2 model on 127.0.0.1 "
                           "(OpenAI-compatible; needs convstate[local])")
    serve.add_argument("--port", type=int, default=8765, help="the port on 127.0.0.1")
    serve.add_argument("--n-ctx", type=int, default=8192, help="the model's context in tokens")
    serve.set_defaults(run=_serve_local)

    comp = sub.add_parser("compress", help="fit a JSON/JSONL list of OpenAI messages")
    comp.add_argument("file", type=Path, help="a JSON list (or {\"messages\": [...]}) or JSONL")
    comp.add_argument("--window", type=int, default=8192, help="context window in tokens")
    comp.add_argument("--keep", type=int, default=KEEP_RECENT_TURNS,
                      help="recent user turns kept raw")
    comp.add_argument("--format", choices=FORMATS.names(), default="text",
                      help="how the state block is written")
    comp.add_argument("--model", default=DEFAULT_COUNT,
                      help="the model whose tokens count (tiktoken's; 'local': the bundled "
                           "model's)")
    comp.add_argument("--system", default=None, help="original system prompt to put first")
    comp.add_argument("--state", action="store_true", help="print the state JSON instead")
    comp.set_defaults(run=_compress)

    srv = sub.add_parser("serve", help="serve sessions over HTTP for bots in any language "
                         "(needs convstate[serve]; token from CONVSTATE_API_TOKEN)")
    srv.add_argument("--store", default=None, help="a SQLite path or postgresql:// DSN")
    srv.add_argument("--host", default="127.0.0.1",
                     help="the address to listen on (not loopback: a token is required)")
    srv.add_argument("--port", type=int, default=8080, help="the port to listen on")
    srv.add_argument("--window", type=int, default=8192, help="default context window")
    srv.add_argument("--model", default=DEFAULT_COUNT, help="the model whose tokens count")
    srv.add_argument("--foreground", action="store_true",
                     help="fold before answering (default: in the background)")
    srv.add_argument("--max-body", type=int, default=1_000_000, help="bytes per request")
    srv.add_argument("--keys", type=Path, default=None, metavar="FILE",
                     help="API keys and their tenants, a JSON object {\"KEY\": \"tenant\"}: "
                          "a key sees only its tenant's sessions and users (reread when "
                          "it changes, or on SIGHUP)")
    srv.add_argument("--idempotency-ttl", type=float, default=None, metavar="SECONDS",
                     help="how long an Idempotency-Key is kept: a retry after that stores "
                          "its messages again (default: 86400, a day)")
    srv.add_argument("--cache-mb", type=float, default=256.0, metavar="MB",
                     help="the RAM the warm sessions may hold together, estimated; the "
                          "least recently used leave it first (default: 256)")
    srv.add_argument("--cors-origin", action="append", default=[], metavar="ORIGIN",
                     help="a web origin allowed to call it from a browser (repeatable; "
                          "none by default)")
    srv.add_argument("--open-docs", action="store_true",
                     help="serve /docs and /openapi.json without the token")
    srv.add_argument("--openapi", type=Path, default=None, metavar="FILE",
                     help="write the OpenAPI schema to FILE and exit")
    srv.set_defaults(run=_serve)

    inspect = sub.add_parser("inspect", help="show a session: turns, state versions, "
                             "compaction log, current state")
    inspect.add_argument("session", help="the session id")
    inspect.add_argument("--store", required=True, help="a SQLite path or postgresql:// DSN")
    inspect.add_argument("--turns", type=int, default=20, help="how many recent turns")
    inspect.set_defaults(run=_inspect)

    lst = sub.add_parser("sessions", help="list a store's sessions: turns, folds, last "
                         "activity (newest first)")
    lst.add_argument("--store", required=True, help="a SQLite path or postgresql:// DSN")
    lst.add_argument("--user", default=None, help="only this user's sessions")
    lst.set_defaults(run=_sessions)

    prof = sub.add_parser("profile", help="show a user's profile: what they told us across "
                          "sessions")
    prof.add_argument("user", help="the user id")
    prof.add_argument("--store", required=True, help="a SQLite path or postgresql:// DSN")
    prof.set_defaults(run=_profile)

    forget = sub.add_parser("forget", help="erase a user everywhere (every session's turns, "
                            "states and log, and the profile), for a privacy request")
    forget.add_argument("user", help="the user id")
    forget.add_argument("--store", required=True, help="a SQLite path or postgresql:// DSN")
    forget.set_defaults(run=_forget)

    migrate = sub.add_parser("migrate", help="create or upgrade the store's tables")
    migrate.add_argument("--store", required=True, help="a SQLite path or postgresql:// DSN")
    migrate.add_argument("--compact-states", action="store_true",
                         help="also rewrite full state versions of older releases as deltas")
    migrate.set_defaults(run=_migrate)

    ev = sub.add_parser("eval", help="measure what each method keeps on dialogues with gold "
                        "annotations (docs/DATA.md)")
    ev.add_argument("data", type=Path, help="dialogues with gold annotations (JSON)")
    ev.add_argument("--window", type=int, default=1000, help="context window in tokens")
    ev.add_argument("--extractor", choices=EXTRACTORS.names(), default="rules",
                    help="what reads the expiring turns")
    ev.add_argument("--llm", default=None, metavar="local|URL",
                    help="the model for llm/hybrid extraction and the rolling summary")
    ev.add_argument("--model", default="local", help="the model name for --llm URL")
    ev.add_argument("--out", type=Path, default=None, help="write results JSON here")
    ev.add_argument("--plot", type=Path, default=None, metavar="DIR",
                    help="write PNG charts (runs windows N/2, N and 2N)")
    ev.add_argument("--limit", type=int, default=None, help="only the first K dialogues")
    ev.add_argument("--trigger", type=float, default=TRIGGER_RATIO,
                    help="fold over this share")
    ev.add_argument("--target", type=float, default=TARGET_RATIO,
                    help="fold down to this share")
    ev.add_argument("--block-share", type=float, default=BLOCK_SHARE,
                    help="the most of the budget the state block may take")
    ev.set_defaults(run=_eval)

    ed = sub.add_parser("eval-docs", help="measure answer retention of compressed retrieved "
                        "documents against truncation and lead sentences")
    ed.add_argument("data", type=Path, nargs="+", help="QA files (question, documents, answers)")
    ed.add_argument("--budget", type=float, nargs="+", default=[0.25],
                    help="share(s) of each instance's tokens (e.g. 0.25 0.5)")
    ed.add_argument("--limit", type=int, default=None, help="only the first K instances")
    ed.add_argument("--hard", type=Path, default=None, metavar="DIR",
                    help="also measure the file of the same name in DIR (the hard-distractor "
                         "variants benchmarks/build_hard_distractors.py writes), beside it")
    ed.add_argument("--out", type=Path, default=None, help="write results JSON here")
    ed.add_argument("--plot", type=Path, default=None, metavar="FILE",
                    help="write a PNG chart of retention by budget")
    ed.set_defaults(run=_eval_docs)

    schema = sub.add_parser("schema", help="write the JSON Schemas of a state model and its "
                            "delta")
    schema.add_argument("--out", type=Path, default=Path("schemas"),
                        help="the folder the two files go to")
    schema.add_argument("--model", default=None, metavar="MODULE:CLASS",
                        help="a ConversationState subclass, as package.module:Class or "
                             "path/to/file.py:Class (default: ConversationState)")
    schema.set_defaults(run=_schema)
    return p


def _demo(args: argparse.Namespace) -> int:
    if args.llm == "local":
        from .extract.local import LocalServer

        with ExitStack() as stack:  # one server, stopped however the demo ends
            with _console().status("starting the local model (llama.cpp)..."):
                server = stack.enter_context(LocalServer())
            return _run_demo(args, server.base_url, "local")
    return _run_demo(args, args.llm, args.model)


def _serve_local(args: argparse.Namespace) -> int:
    from .extract.local import server_command

    cmd = server_command(args.port, args.n_ctx)
    print(f"serving the local model at http://127.0.0.1:{args.port}/v1 (Ctrl-C stops)",
          flush=True)
    os.execv(cmd[0], cmd)  # become the server: a signal to this pid reaches it


def _run_demo(args: argparse.Namespace, base_url: str | None, model: str | None) -> int:
    out = _console()
    extractor: Extractor = RuleExtractor()
    if base_url:
        from .extract.llm import HybridExtractor, LLMExtractor

        extractor = HybridExtractor(LLMExtractor(base_url=base_url, model=model))
        out.print(f"extractor: hybrid (rules for anchors, {model or 'the model'} at "
                  f"{base_url} for the rest)")
    demo = load_demo(args.lang)
    messages = demo["messages"]

    def on_fold(r: CompactionRecord) -> None:
        progress.console.print(
            f"fold v{r.version}: turns #{r.first_turn}-#{r.last_turn} -> +{r.added} items, "
            f"{r.deduplicated} merged, {r.superseded} superseded, {r.rejected} rejected; "
            f"context {r.tokens_before} -> {r.tokens_after} tokens"
            + (f"; extractor {r.prompt_tokens}+{r.completion_tokens} tokens"
               if r.prompt_tokens else "") + (f" [{r.notes}]" if r.notes else "")
            + (f" [error: {r.error}]" if r.error else ""))

    # a new session per run, in a file `convstate inspect` can open afterwards
    session = f"demo-{args.lang}-{datetime.now():%Y%m%d-%H%M%S}"
    mem = ConversationMemory(
        session, store=SQLiteStore(args.store), context_window=args.window,
        system_prompt=demo["system_prompt"], keep_recent_turns=args.keep,
        state_format=args.format, on_fold=on_fold, extractor=extractor)
    peak = 0
    # the spinner and the clock keep moving while a slow (LLM) fold runs
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                  MofNCompleteColumn(), TimeElapsedColumn(), console=out,
                  transient=False) as progress:
        task = progress.add_task("turns", total=len(messages))
        for k, msg in enumerate(messages):
            mem.add_message(msg)
            progress.update(task, description=f"turn {k}: context (folds when due)")
            peak = max(peak, mem.tokens(mem.context()))
            progress.advance(task)
        progress.update(task, description="turns")
    context = mem.context()
    full = [{"role": "system", "content": demo["system_prompt"]}] + [
        t.message() for t in mem.history()]
    if args.json:
        out.rule("state JSON")
        out.print_json(mem.state.model_dump_json())
    out.rule("where each exact value is (mem.where)")
    places = {"raw": "raw turns", "block": "block", "state": "state only"}
    for a in mem.state.active_anchors():
        where = mem.where(a.value)
        out.print(f"{a.key}: {json.dumps(a.value, ensure_ascii=False)} -> "
                  f"{places.get(where, where)}")
    out.rule("state block")
    out.print(mem.render() or (
        f"(empty: the whole conversation fits the {mem.policy.budget}-token budget as raw "
        "turns, and the block repeats nothing they hold; a smaller --window folds it)"))
    out.rule("tokens")
    if base_url:
        u = mem.usage()
        out.print(f"extractor usage: {u.folds} folds ({u.fell_back} of them by the rules "
                  f"after the model failed; {u.failed} failed), "
                  f"{u.prompt_tokens} prompt + {u.completion_tokens} completion tokens")
    out.print(f"context: {mem.tokens(context)} tokens (peak {peak}, budget "
              f"{mem.policy.budget} of a {mem.policy.context_window} window); full history: "
              f"{mem.tokens(full)} tokens in {len(full) - 1} turns")
    out.print(f"stored in {args.store}: convstate inspect {session} --store {args.store}")
    mem.close()
    return 0


def _open(target: str, create: bool = False, readonly: bool = False) -> Any:
    """The store at a path or DSN; a SQLite file must exist unless ``create``."""
    if not create and not target.startswith(("postgresql://", "postgres://")) \
            and not Path(target).exists():
        raise ConfigError("store", f"{target} does not exist")
    return open_store(target, readonly=readonly)


def _serve(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from .service import api_token, check_exposure, create_app
        from .tenants import Keys
    except ImportError:
        raise ConfigError("serve", "needs FastAPI and uvicorn: pip install "
                          "'convstate[serve]'") from None
    token = api_token(os.environ.get("CONVSTATE_API_TOKEN"))
    if args.openapi is not None:
        _check_file("openapi", args.openapi)
        app = create_app(InMemoryStore(), token=token)
        args.openapi.write_text(json.dumps(app.openapi(), indent=1, sort_keys=True) + "\n",
                                "utf-8")
        print(args.openapi)
        return 0
    if args.store is None:
        raise ConfigError("store", "required: a SQLite path or postgresql:// DSN")
    keys = Keys(args.keys) if args.keys is not None else None
    if keys is not None:  # (the file is also reread whenever it changes)
        signal.signal(signal.SIGHUP, lambda *_: keys.reload())
    check_exposure(args.host, token, keys)
    app = create_app(_open(args.store, create=True), token=token, window=args.window,
                     model=args.model, background=not args.foreground,
                     max_body=args.max_body, cors_origins=args.cors_origin,
                     open_docs=args.open_docs, keys=keys,
                     idempotency_ttl=args.idempotency_ttl, cache_mb=args.cache_mb)
    guard = "keys required" if keys else "token required" if token else \
        "no token: loopback only"
    print(f"serving {args.store} at http://{args.host}:{args.port}/v1 ({guard}); the "
          f"inspector at http://{args.host}:{args.port}/ui", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


def _profile(args: argparse.Namespace) -> int:
    from rich.table import Table

    from .profile import Profile

    store = _open(args.store, readonly=True)
    data = store.load_profile(args.user)
    if data is None:
        raise ConfigError("user", f"no profile for user {args.user!r} in {args.store}")
    profile = Profile.model_validate(data)
    table = Table(title=f"user {args.user!r}: profile v{profile.version}, sessions "
                        f"{', '.join(store.user_sessions(args.user))}")
    for col in ("id", "kind", "status", "weight", "said in"):
        table.add_column(col, no_wrap=True)
    table.add_column("value", ratio=1, overflow="fold")
    for i in profile.items:
        table.add_row(i.id, i.kind, i.status, f"{i.importance:.2f}",
                      f"{i.session_id} #{i.turn}\n{i.last_confirmed:%Y-%m-%d}",
                      Text(_printable(i.value)))
    _console().print(table)
    return 0


def _sessions(args: argparse.Namespace) -> int:
    from rich.table import Table

    store = _open(args.store, readonly=True)
    names = store.sessions() if args.user is None else store.user_sessions(args.user)
    rows = []
    for name in names:
        count = store.turn_count(name)
        last = store.turns(name, after=count - 2)
        rows.append((last[-1].created_at if last else None, name, count,
                     store.state_version(name)))
    rows.sort(key=lambda r: (r[0] is not None, r[0] or datetime.min), reverse=True)
    whose = f" of user {args.user!r}" if args.user is not None else ""
    table = Table(title=f"{len(rows)} sessions{whose} in {args.store}")
    for col in ("session", "turns", "folds", "last activity (UTC)"):
        table.add_column(col, no_wrap=True, justify="right" if col in ("turns", "folds")
                         else "left")
    for at, name, count, folds in rows:
        table.add_row(Text(_printable(name)), str(count), str(folds),
                      f"{at:%Y-%m-%d %H:%M:%S}" if at else "-")
    _console().print(table)
    return 0


def _forget(args: argparse.Namespace) -> int:
    store = _open(args.store)
    sessions = store.user_sessions(args.user)
    known = bool(sessions) or store.load_profile(args.user) is not None
    erased = store.forget_user(args.user)  # also when unknown: it ends an earlier scrub
    if not known:
        print(f"user {args.user!r}: no sessions and no profile in {args.store}; nothing "
              "erased (check the id)")
        return 0
    print(f"user {args.user!r}: {len(sessions)} sessions, {erased} turns and the profile "
          "erased")
    return 0


def _inspect(args: argparse.Namespace) -> int:
    from rich.table import Table

    out = _console()
    store = _open(args.store, readonly=True)  # looking never changes the file
    turns = store.turns(args.session)
    if not turns:
        raise ConfigError("session", f"no turns for session {args.session!r} in {args.store}")
    data = store.load_state(args.session)
    state = ConversationState.model_validate(data) if data else ConversationState()
    table = Table(title=f"session {args.session!r}: {len(turns)} turns, state v"
                        f"{state.version}, folded through #{state.folded_through}")
    for col in ("#", "role", "content", "folded"):
        table.add_column(col)
    for t in turns[-args.turns:]:
        table.add_row(str(t.index), t.role,
                      Text(_printable((t.text[:80] + "…") if len(t.text) > 80 else t.text)),
                      "yes" if t.index <= state.folded_through else "")
    out.print(table)
    versions = Table(title="state versions")
    for col in ("version", "folded through", "saved at"):
        versions.add_column(col)
    for v, wm, at in store.versions(args.session):
        versions.add_row(str(v), str(wm), str(at))
    out.print(versions)
    log = Table(title="compaction log (items: +added ~merged x rejected)")
    for col in ("turns", "v", "context", "items", "extractor"):
        log.add_column(col, no_wrap=True)
    log.add_column("notes / error", ratio=1)
    for r in store.compactions(args.session):
        spent = f" {r.prompt_tokens}+{r.completion_tokens}" if r.prompt_tokens else ""
        log.add_row(f"#{r.first_turn}-#{r.last_turn}", str(r.version or "-"),
                    f"{r.tokens_before}->{r.tokens_after}",
                    f"+{r.added} ~{r.deduplicated} x{r.rejected}", r.extractor + spent,
                    Text(_printable((r.error or r.notes or "")[:60])))
    out.print(log)
    out.rule("state")
    out.print(render(state))
    return 0


def _migrate(args: argparse.Namespace) -> int:
    store = _open(args.store, create=True)
    print(f"{args.store}: schema version {store.migrate()}")
    if args.compact_states:
        rewritten = before = after = 0
        for session in store.sessions():
            n, b, a = store.compact_states(session)
            rewritten, before, after = rewritten + n, before + b, after + a
        print(f"{rewritten} state versions rewritten as packed deltas: {before / 1e6:.2f} MB of "
              f"states -> {after / 1e6:.2f} MB (a SQLite file reuses the freed pages; "
              "VACUUM gives them back)")
    return 0


def _eval(args: argparse.Namespace) -> int:
    # what a caller can get wrong is said before the run, not after it
    if args.limit is not None and args.limit < 1:
        raise ConfigError("limit", f"expected a positive number of dialogues, got {args.limit}")
    _check_file("out", args.out)
    _check_folder("plot", args.plot)
    _check_plotting(args.plot)
    if args.extractor != "rules" and not args.llm:
        raise ConfigError("llm", f"--extractor {args.extractor} needs --llm local|URL")
    if args.llm == "local":
        from .extract.local import LocalServer

        with LocalServer() as server:
            return _run_eval(args, server.base_url)
    return _run_eval(args, args.llm)


def _run_eval(args: argparse.Namespace, url: str | None) -> int:
    from rich.table import Table

    from .eval.run import EvalConfig, evaluate, load_dialogues
    from .eval.state_accuracy import MEASURES as STATE_MEASURES

    out = _console()
    dialogues = load_dialogues(args.data, args.limit)
    windows = sorted({max(MIN_WINDOW, args.window // 2), args.window, args.window * 2}) \
        if args.plot else [args.window]
    runs = {}
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  console=out) as progress:
        for window in windows:
            task = progress.add_task(f"window {window}", total=len(dialogues))
            cfg = EvalConfig(window=window, extractor=args.extractor, llm_url=url,
                             llm_model=args.model, trigger_ratio=args.trigger,
                             target_ratio=args.target, block_share=args.block_share)
            runs[window] = evaluate(dialogues, cfg, partial(_advance, progress, task))
    result = runs[args.window]
    table = Table(title=f"{args.data.name}: {len(dialogues)} dialogues, window {args.window}, "
                        f"extractor {args.extractor}")
    metrics = ("anchor_retention", "anchor_retention_early", "constraint_retention",
               "decision_recall", "open_task_precision", "open_task_recall",
               "context_tokens", "history_tokens",
               "extractor_prompt_tokens", "duplicates", "rejected_anchors",
               "sentiment_accuracy", "sentiment_macro_f1", *STATE_MEASURES)
    table.add_column("metric", no_wrap=True)
    for method in result["summary"]:  # two-line headers: the table fits 80 columns
        table.add_column(method.replace("_", "\n"), justify="right", no_wrap=True)
    for metric in metrics:
        table.add_row(metric, *[_cell(s.get(metric)) for s in result["summary"].values()])
    out.print(table)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, ensure_ascii=False, indent=1), "utf-8")
        out.print(f"results: {args.out}")
    if args.plot:
        from .eval.plots import retention_by_window, tokens_by_turn

        args.plot.mkdir(parents=True, exist_ok=True)
        for path in (retention_by_window(runs, args.plot / "retention_by_window.png"),
                     tokens_by_turn(result, args.plot / "tokens_by_turn.png")):
            out.print(f"chart: {path}")
    return 0


def _eval_docs(args: argparse.Namespace) -> int:
    from rich.table import Table

    from .eval.docs import METHODS, evaluate_documents, load_qa

    if any(not 0 < b <= 1 for b in args.budget):
        raise ConfigError("budget", "expected shares of the tokens, above 0 and at most 1")
    _check_file("out", args.out)
    _check_file("plot", args.plot)
    _check_plotting(args.plot)
    sets = _qa_sets(args.data, args.hard)
    out = _console()
    results: dict[str, dict[float, dict[str, Any]]] = {}
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  console=out) as progress:
        for name, path in sets:
            data = load_qa(path, args.limit)
            for ratio in args.budget:
                task = progress.add_task(f"{name} @{ratio:.0%}", total=len(data))
                results.setdefault(name, {})[ratio] = evaluate_documents(
                    data, ratio, progress=partial(_advance, progress, task))
    table = Table(title="answer retention (an answer verbatim in the gold document's kept "
                  "text; anywhere: in the whole output)")
    for col in ("set", "budget", "convstate", "95% CI", "anywhere", *METHODS[1:], "ms",
                "ms/1k"):
        table.add_column(col, justify="left" if col == "set" else "right", no_wrap=True)
    for name, runs in results.items():
        for ratio, r in runs.items():
            ours = r["methods"]["convstate"]
            table.add_row(name[:25], f"{ratio:.0%}", _share(ours["answer_retention"]),
                          "-" if ours["ci95"] is None else "{:.3f}-{:.3f}".format(*ours["ci95"]),
                          _share(ours["answer_anywhere"]), *[
                              _share(r["methods"][m]["answer_retention"]) for m in METHODS[1:]],
                          f"{r['ms_per_instance']:.1f}", f"{r['ms_per_1k_tokens']['median']:.1f}")
    out.print(table)
    if any(r["over_budget"] for runs in results.values() for r in runs.values()):
        out.print("[red]over the budget:[/red] " + ", ".join(
            f"{n} @{k:.0%} ({r['over_budget']})" for n, runs in results.items()
            for k, r in runs.items() if r["over_budget"]))
    if args.out:
        args.out.write_text(json.dumps({n: {str(k): v for k, v in runs.items()}
                                        for n, runs in results.items()}, indent=1), "utf-8")
        out.print(f"results: {args.out}")
    if args.plot:
        from .eval.plots import retention_by_budget

        out.print(f"chart: {retention_by_budget(results, args.plot)}")
    return 0


def _qa_sets(files: list[Path], hard: Path | None) -> list[tuple[str, Path]]:
    """Each QA file by its stem, followed by its variant of the same name in ``hard``."""
    if hard is not None and not hard.is_dir():
        raise ConfigError("hard", f"{hard} is not a folder")
    sets = []
    for path in files:
        sets.append((path.stem, path))
        if hard is not None and (hard / path.name).is_file():
            sets.append((f"{path.stem} (hard)", hard / path.name))
    if hard is not None and len(sets) == len(files):
        raise ConfigError("hard", f"{hard} holds none of {', '.join(p.name for p in files)}")
    return sets


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _check_file(name: str, path: Path | None) -> None:
    """``--name FILE`` names a file that can be written (not a folder)."""
    if path is None:
        return
    if path.is_dir():
        raise ConfigError(name, f"{path} is a folder; give a file name")
    _check_writable(name, path.parent)


def _check_plotting(path: Path | None) -> None:
    """Charts need matplotlib (the eval extra)."""
    if path is not None and importlib.util.find_spec("matplotlib") is None:
        raise ConfigError("plot", 'charts need matplotlib: pip install "convstate[eval]"')


def _check_folder(name: str, path: Path | None) -> None:
    """``--name DIR`` names a folder that is there or can be made (not a file)."""
    if path is None:
        return
    if path.exists() and not path.is_dir():
        raise ConfigError(name, f"{path} is a file; give a folder")
    _check_writable(name, path)


def _check_writable(name: str, folder: Path) -> None:
    """``folder`` exists (or can be made) and takes new files."""
    existing = next((p for p in [folder, *folder.parents] if p.exists()), Path("."))
    if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise ConfigError(name, f"cannot write under {folder}")


def _printable(text: str) -> str:
    """Control characters shown escaped: a turn cannot drive the terminal (ESC[31m)."""
    return "".join(ch if ch.isprintable() or ch == " " else repr(ch)[1:-1] for ch in text)


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def read_messages(path: Path) -> list[dict[str, Any]]:
    """Messages from a JSON list (or {"messages": [...]}) or from JSONL, one per line."""
    data = read_json(path, lines=path.suffix == ".jsonl")
    if isinstance(data, dict) and "messages" in data:
        data = data["messages"]
    if not isinstance(data, list):
        raise DataError(f"{path}: expected a list of messages")
    for k, m in enumerate(data):
        if not isinstance(m, dict):
            raise DataError(f"{path}: message #{k} is a {type(m).__name__}, not an object")
    return data


def _compress(args: argparse.Namespace) -> int:
    messages = read_messages(args.file)
    system = args.system
    if system is None and messages and messages[0].get("role") == "system":
        system, messages = messages[0].get("content"), messages[1:]
    mem = ConversationMemory("compress", store=InMemoryStore(), context_window=args.window,
                             keep_recent_turns=args.keep, state_format=args.format,
                             system_prompt=system, model=args.model)
    mem.add_messages(messages)
    context = mem.context()
    if args.state:
        print(mem.state.model_dump_json(indent=2))
    else:
        print(json.dumps(context, ensure_ascii=False, indent=2))
    print(f"{len(messages)} messages -> {len(context)} in the context, "
          f"{mem.tokens(context)} tokens", file=sys.stderr)
    return 0


def load_model(spec: str) -> type[ConversationState]:
    """The class named by ``package.module:Class`` or ``path/to/file.py:Class``."""
    target, _, cls_name = spec.rpartition(":")
    if not target or not cls_name:
        raise ConfigError("model", f"expected MODULE:CLASS, got {spec!r}")
    try:
        if target.endswith(".py"):
            loader = importlib.util.spec_from_file_location(Path(target).stem, target)
            if loader is None or loader.loader is None:
                raise ImportError(target)
            module = importlib.util.module_from_spec(loader)
            sys.modules[loader.name] = module  # so pydantic can resolve its annotations
            loader.loader.exec_module(module)
        else:
            module = importlib.import_module(target)
    except (ImportError, OSError) as exc:
        raise ConfigError("model", f"cannot import {target}: {exc}") from None
    cls = getattr(module, cls_name, None)
    if not (isinstance(cls, type) and issubclass(cls, ConversationState)):
        raise ConfigError("model", f"{spec} is not a ConversationState subclass")
    return cls


def schema_files(model: type[ConversationState] = ConversationState
                 ) -> dict[str, dict[str, Any]]:
    """File name -> JSON Schema of a state model and of its derived delta."""
    prefix = "" if model is ConversationState else \
        re.sub(r"(?<!^)(?=[A-Z])", "_", model.__name__).lower() + "."
    return {
        f"{prefix}state.schema.json": model.model_json_schema(),
        f"{prefix}delta.schema.json": delta_model(model).model_json_schema(),
    }


def _schema(args: argparse.Namespace) -> int:
    model = load_model(args.model) if args.model else ConversationState
    _check_folder("out", args.out)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, schema in schema_files(model).items():
        (args.out / name).write_text(json.dumps(schema, indent=2, ensure_ascii=False) + "\n",
                                     "utf-8")
        print(args.out / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
