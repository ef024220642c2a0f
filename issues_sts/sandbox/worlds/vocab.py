"""Word lists for the world generator: components, errors, triggers, per language.

Everything here is written for this project; nothing is drawn from real trackers.
"""

from __future__ import annotations

# (label, noun, verb): "config loader" -> load_config / Config::load / loadConfig / config.Load
COMPONENTS = (
    ("config loader", "config", "load"),
    ("command-line parser", "args", "parse"),
    ("HTTP client", "client", "fetch"),
    ("cache layer", "cache", "get"),
    ("task scheduler", "scheduler", "schedule"),
    ("plugin system", "plugin", "register"),
    ("logging setup", "logger", "configure"),
    ("JSON serializer", "serializer", "dump"),
    ("database driver", "connection", "execute"),
    ("auth module", "token", "refresh"),
    ("file watcher", "watcher", "watch"),
    ("template engine", "template", "render"),
    ("metrics exporter", "metrics", "export"),
    ("retry policy", "retry", "backoff"),
    ("websocket transport", "socket", "connect"),
    ("migration tool", "migration", "apply"),
    ("archive extractor", "archive", "extract"),
    ("image decoder", "image", "decode"),
    ("CSV reader", "csv", "read"),
    ("thread pool", "pool", "spawn"),
    # more components than a tracker's random sample of a hundred issues can cover twice: with
    # few, the earlier reports that share a duplicate's component outscore its canonical more
    # often than in the archives (`python -m benchmarks.difficulty`)
    ("rate limiter", "limiter", "acquire"),
    ("session store", "session", "save"),
    ("queue consumer", "consumer", "poll"),
    ("PDF exporter", "pdf", "write"),
    ("search indexer", "indexer", "index"),
    ("mail sender", "mailer", "send"),
    ("geocoder", "geocoder", "lookup"),
    ("diff viewer", "diff", "compute"),
    ("font loader", "font", "shape"),
    ("audio mixer", "mixer", "mix"),
    ("cron parser", "cron", "next"),
    ("secret vault", "vault", "unseal"),
    ("GraphQL resolver", "resolver", "resolve"),
    ("YAML parser", "yaml", "scan"),
    ("compression codec", "codec", "compress"),
    ("URL router", "router", "route"),
    ("S3 uploader", "uploader", "upload"),
    ("locale formatter", "formatter", "format"),
    ("job runner", "runner", "run"),
    ("snapshot writer", "snapshot", "persist"),
)

ERRORS = {
    "python": (
        "KeyError: '{key}'",
        "TypeError: unsupported operand type(s) for +: 'NoneType' and 'int'",
        "UnicodeDecodeError: 'utf-8' codec can't decode byte 0x{hex} in position {pos}: invalid "
        "start byte",
        "RecursionError: maximum recursion depth exceeded while calling a Python object",
        "ValueError: too many values to unpack (expected 2)",
        "AttributeError: 'NoneType' object has no attribute '{attr}'",
        "FileNotFoundError: [Errno 2] No such file or directory: '{path}'",
        "TimeoutError: operation timed out after {secs} seconds",
        "PermissionError: [Errno 13] Permission denied: '{path}'",
        "RuntimeError: dictionary changed size during iteration",
        "ImportError: cannot import name '{attr}' from partially initialized module",
        "OSError: [Errno 24] Too many open files",
    ),
    "rust": (
        "thread 'main' panicked at 'called `Option::unwrap()` on a `None` value'",
        "thread 'main' panicked at 'index out of bounds: the len is {pos} but the index is {big}'",
        "error[E0308]: mismatched types: expected `{attr}`, found `&str`",
        "error[E0499]: cannot borrow `{key}` as mutable more than once at a time",
        "thread 'worker-{secs}' has overflowed its stack",
        "thread 'main' panicked at 'attempt to subtract with overflow'",
        "error: linking with `cc` failed: exit status: 1",
        "error: internal compiler error: unexpected panic in {attr}",
        "thread 'main' panicked at 'already borrowed: BorrowMutError'",
        "error[E0277]: the trait bound `{attr}: Send` is not satisfied",
    ),
    "js": (
        "TypeError: Cannot read properties of undefined (reading '{attr}')",
        "RangeError: Maximum call stack size exceeded",
        "Error [ERR_REQUIRE_ESM]: require() of ES Module {path} not supported",
        "SyntaxError: Unexpected token '?'",
        "Error: ENOENT: no such file or directory, open '{path}'",
        "UnhandledPromiseRejection: This error originated either by throwing inside of an async "
        "function",
        "Module not found: Error: Can't resolve '{key}'",
        "TypeError: {attr} is not a function",
        "Error: listen EADDRINUSE: address already in use :::{big}",
        "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
    ),
    "go": (
        "panic: runtime error: invalid memory address or nil pointer dereference",
        "fatal error: concurrent map writes",
        "context deadline exceeded (Client.Timeout exceeded while awaiting headers)",
        "panic: runtime error: index out of range [{big}] with length {pos}",
        "dial tcp 127.0.0.1:{big}: connect: connection refused",
        "x509: certificate signed by unknown authority",
        "fatal error: all goroutines are asleep - deadlock!",
        "json: cannot unmarshal string into Go struct field {attr} of type int",
        "open {path}: too many open files",
        "http: superfluous response.WriteHeader call",
    ),
}

TRIGGERS = (
    "when the path contains spaces",
    "after upgrading to {version}",
    "on Windows",
    "under heavy concurrency",
    "when the input is empty",
    "with non-ASCII file names",
    "behind a corporate proxy",
    "when running inside Docker",
    "on the first run after a fresh install",
    "with very large inputs (several GB)",
    "when the {env} environment variable is unset",
    "on ARM64 machines",
    "when the network drops mid-request",
    "in offline mode",
    "when two processes share the same directory",
    "after the system clock changes",
)

SYMPTOMS = (
    "crashes",
    "hangs forever",
    "returns wrong results",
    "leaks memory",
    "fails with an error",
    "silently ignores the setting",
    "fails to start",
    "corrupts its output",
)

FEATURES = (
    "a dry-run mode",
    "YAML configuration files",
    "custom retry strategies",
    "streaming output",
    "a JSON output format",
    "async support",
    "colored terminal output",
    "per-user overrides",
    "a progress indicator",
    "pluggable storage backends",
    "exporting to Parquet",
    "environment variable interpolation",
)

OSES = (
    "Ubuntu 22.04",
    "Ubuntu 24.04",
    "macOS 14.4",
    "macOS 15.1",
    "Windows 11",
    "Windows 10",
    "Debian 12",
    "Fedora 40",
    "Arch Linux",
    "Alpine 3.19",
)
KEYS = ("timeout", "base_url", "user_id", "max_workers", "profile", "region", "cache_dir", "locale")
ATTRS = ("items", "headers", "length", "encode", "close", "Handle", "Session", "Buffer", "value")
PATHS = (
    "/tmp/build/out.json",
    "C:\\Users\\dev\\My Project\\settings.toml",
    "./data/input.csv",
    "/var/lib/app/state.db",
    "~/.config/app/config.yaml",
    "/home/ci/work/src/main.ts",
)
ENVS = ("HOME", "APP_CONFIG", "XDG_CACHE_HOME", "LANG", "HTTP_PROXY", "TMPDIR")

SYLLABLES = (
    "ka",
    "ro",
    "mi",
    "tan",
    "vel",
    "zo",
    "lu",
    "dar",
    "en",
    "fi",
    "gro",
    "hal",
    "is",
    "jo",
    "kel",
    "mar",
    "no",
    "pix",
    "qui",
    "ras",
    "sol",
    "tev",
    "ur",
    "vin",
    "wex",
    "yal",
)

PROJECTS = (
    ("lumen-labs", "lumen", "python"),
    ("ferrocene-tools", "oxbow", "rust"),
    ("nimbus-io", "nimbus", "js"),
    ("gopherworks", "tern", "go"),
    ("acme", "widgets", "python"),
    ("quartz-dev", "quartz", "rust"),
    ("paperplane", "kite", "js"),
    ("orbital", "dock", "go"),
    ("tessellate", "tessera", "python"),
    ("brightfield", "prism", "js"),
)

DUP_LABELS = (
    "duplicate",
    "r: duplicate",
    "triage/duplicate",
    "Resolution-Duplicate",
    "status: duplicate",
)
OTHER_LABELS = (
    "bug",
    "enhancement",
    "question",
    "documentation",
    "good first issue",
    "needs-triage",
    "help wanted",
    "regression",
    "performance",
)
