"""RadReview settings, read from the environment.

With no variables set, RadReview runs on its embedded default: SQLite and Celery over kombu's
``filesystem://`` transport, both inside the data folder. Production deployments set
``DATABASE_URL`` (PostgreSQL) and ``CELERY_BROKER_URL`` (Redis) and nothing else changes.
The defaults are the safe ones (DEBUG off, HTTPS-only cookies, HSTS); the local run script
relaxes the HTTPS settings explicitly with ``RADREVIEW_LOCAL_HTTP=1``.
"""
from __future__ import annotations

import datetime as dt
import os
import secrets
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    if value.lower() in ("1", "true", "yes", "on"):
        return True
    if value.lower() in ("0", "false", "no", "off"):
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), got {value!r}")


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    if not value:
        return default
    try:
        return int(value)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} must be an integer, got {value!r}") from exc


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if not value:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


# --- Folders -------------------------------------------------------------------------------

DATA_DIR = Path(os.environ.get("RADREVIEW_DATA_DIR", BASE_DIR / "data")).resolve()
DATA_DIR.mkdir(parents=True, exist_ok=True)
# Uploads and previews; on several hosts, a shared mount that web and workers both see.
MEDIA_ROOT = Path(os.environ.get("RADREVIEW_MEDIA_ROOT", DATA_DIR / "media")).resolve()
MEDIA_URL = "/media/"
STATIC_ROOT = DATA_DIR / "staticfiles"
STATIC_URL = "/static/"
# Where media (uploads, previews, renders) and the reference indexes are kept: "filesystem"
# (the embedded default: MEDIA_ROOT and INDEX_DIR on this host) or "s3", one S3-compatible
# bucket that every host shares, through django-storages (docs/operations.md, "Object
# storage"). Credentials come from the environment, never from a file in the repository.
MEDIA_STORE = os.environ.get("RADREVIEW_MEDIA_STORE", "filesystem")
if MEDIA_STORE not in ("filesystem", "s3"):
    raise ImproperlyConfigured("RADREVIEW_MEDIA_STORE is 'filesystem' or 's3'")
STORAGES = {
    # Uploads are written under a temporary name and renamed: a full disk or a killed process
    # never leaves half a file under a stored name (radreview/studies/storage.py).
    "default": {"BACKEND": "radreview.studies.storage.AtomicFileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
if MEDIA_STORE == "s3":
    # The media's folder in the bucket ("media"; the tests give each test one of its own).
    MEDIA_PREFIX = os.environ.get("RADREVIEW_S3_MEDIA_PREFIX", "media")
    S3_OPTIONS = {
        "bucket_name": os.environ.get("RADREVIEW_S3_BUCKET", "radreview"),
        "endpoint_url": os.environ.get("RADREVIEW_S3_ENDPOINT") or None,
        "region_name": os.environ.get("RADREVIEW_S3_REGION", "us-east-1"),
        "access_key": os.environ.get("RADREVIEW_S3_ACCESS_KEY_ID"),
        "secret_key": os.environ.get("RADREVIEW_S3_SECRET_ACCESS_KEY"),
        # A stored name is never overwritten (a taken name gets a suffix, as on disk), the
        # bucket stays private, and any URL handed out is signed and short-lived.
        "file_overwrite": False,
        "default_acl": None,
        "querystring_auth": True,
        "querystring_expire": env_int("RADREVIEW_S3_URL_SECONDS", 300),
    }
    from radreview.media.s3 import transfer_config  # noqa: PLC0415 - boto3 only with S3
    STORAGES["default"] = {"BACKEND": "radreview.media.bucket.BucketStorage",
                           "OPTIONS": {**S3_OPTIONS, "location": MEDIA_PREFIX,
                                       "transfer_config": transfer_config()}}
    # The reference indexes (INDEX_DIR is then each host's cache of them): every published
    # version has a name of its own and only the small pointer naming the current one is
    # overwritten (radreview/library/index_store.py; docs/images.md, "Reference indexes in
    # the object store"). Their folder beside the media's ("indexes"; the tests give each
    # test one of its own), never inside it, so the media's inventory never lists them.
    INDEX_PREFIX = os.environ.get("RADREVIEW_S3_INDEX_PREFIX", "indexes")
    STORAGES["indexes"] = {"BACKEND": "radreview.media.bucket.BucketStorage",
                           "OPTIONS": {**S3_OPTIONS, "location": INDEX_PREFIX,
                                       "transfer_config": transfer_config()}}
STATICFILES_DIRS = [BASE_DIR / "static"]


def _secret_key() -> str:
    """The secret key from the environment, else one generated once and kept in the data folder."""
    if os.environ.get("DJANGO_SECRET_KEY"):
        return os.environ["DJANGO_SECRET_KEY"]
    key_file = DATA_DIR / "secret_key"
    if not key_file.exists():
        fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_urlsafe(64))
    return key_file.read_text().strip()


SECRET_KEY = _secret_key()
DEBUG = env_bool("DJANGO_DEBUG", False)
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])
# An upload or a form refused for its size before its body was read has no CSRF token to
# check: this view answers 413 with the size limit instead of a bare 403 (or 400).
CSRF_FAILURE_VIEW = "radreview.studies.views.csrf_failure"

# --- Transport security --------------------------------------------------------------------

# Plain HTTP is only for the embedded default, which listens on loopback.
LOCAL_HTTP = env_bool("RADREVIEW_LOCAL_HTTP", False)
LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1", "[::1]", "testserver"}
if LOCAL_HTTP and not set(ALLOWED_HOSTS) <= LOOPBACK_HOSTS:
    raise ImproperlyConfigured(
        "RADREVIEW_LOCAL_HTTP=1 serves without HTTPS and is only allowed when "
        f"DJANGO_ALLOWED_HOSTS lists loopback names; got {ALLOWED_HOSTS}"
    )
SECURE_SSL_REDIRECT = not LOCAL_HTTP
SESSION_COOKIE_SECURE = not LOCAL_HTTP
CSRF_COOKIE_SECURE = not LOCAL_HTTP
SECURE_HSTS_SECONDS = 0 if LOCAL_HTTP else 31_536_000
SECURE_HSTS_INCLUDE_SUBDOMAINS = not LOCAL_HTTP
SECURE_HSTS_PRELOAD = not LOCAL_HTTP
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SESSION_COOKIE_HTTPONLY = True
# Django's database sessions, with a save that fails in an outage answered as one (not a 400).
SESSION_ENGINE = "radreview.outages.sessions"
# A session lasts at most this long; idle sessions end sooner (SESSION_IDLE_SECONDS below).
SESSION_COOKIE_AGE = 12 * 60 * 60
X_FRAME_OPTIONS = "DENY"

# The whole Content-Security-Policy, in one value (django-csp). Scripts come only from our own
# static files: no inline script, no inline event handler, no eval. 'wasm-unsafe-eval' and blob:
# workers are what a locally served image viewer (Cornerstone's WebAssembly decoders) needs; style
# attributes stay allowed (they cannot run code), <style> elements do not.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'", "'wasm-unsafe-eval'"],
        "worker-src": ["'self'", "blob:"],
        "style-src": ["'self'"],
        "style-src-elem": ["'self'"],
        "style-src-attr": ["'unsafe-inline'"],
        "img-src": ["'self'", "data:", "blob:"],
        "connect-src": ["'self'"],
        "font-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

# --- Applications --------------------------------------------------------------------------

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "knox",
    "drf_spectacular",
    "django_htmx",
    "axes",
    "django_otp",
    "django_otp.plugins.otp_totp",
    "mozilla_django_oidc",
    "csp",
    "radreview.accounts",
    "radreview.audit",
    "radreview.studies",
    "radreview.jobs",
    "radreview.review",
    "radreview.library",
    "radreview.modelroles",
    "radreview.calibration",
    "radreview.detectors",
    "radreview.dicomnet",
    "radreview.sitesetup",
    "radreview.media",
    "radreview.dictation",
    "radreview.compare",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",  # static files answer here, before the rest
    "radreview.security.middleware.NoStoreMiddleware",
    "csp.middleware.CSPMiddleware",
    "radreview.security.middleware.RefuseNulMiddleware",
    "radreview.security.middleware.BoundedIdsMiddleware",
    # Database or broker down: 503 + Retry-After. Before the session, the first database user.
    "radreview.outages.middleware.OutageMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "radreview.security.middleware.CsrfViewMiddleware",  # Django's, with oversized forms: 413
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django_otp.middleware.OTPMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "radreview.studies.middleware.OriginalMissingMiddleware",
    "radreview.accounts.idle.IdleLogoutMiddleware",
    "radreview.accounts.middleware.LoginRequiredEverywhere",
    "radreview.accounts.two_factor.SecondFactorMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "radreview.urls"
WSGI_APPLICATION = "radreview.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "radreview.accounts.idle.idle_settings",
                "radreview.accounts.shortcuts.shortcut_settings",
            ],
        },
    },
]

# --- Database and cache --------------------------------------------------------------------

DATABASE_URL = os.environ.get("DATABASE_URL", f"sqlite:///{DATA_DIR / 'radreview.sqlite3'}")
DATABASES = {
    "default": dj_database_url.parse(
        DATABASE_URL,
        # Connections are kept this many seconds (PostgreSQL: a new one per request or task
        # costs a login each time; docs/operations.md) and checked before each reuse, so a
        # database restart costs one failed request, not a process restart.
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE",
                             0 if DATABASE_URL.startswith("sqlite") else 300),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Parameters bound on the server, and a statement prepared once a connection has run it
    # this many times (psycopg's prepare_threshold): PostgreSQL then stops planning the same
    # queries again, about a third of its CPU per review decision (docs/operations.md, "Load").
    # Django leaves both off for transaction-pooling proxies (PgBouncer before 1.21, which
    # cannot keep a prepared statement): "off" turns them off for a site behind one.
    if os.environ.get("RADREVIEW_DB_PREPARE_THRESHOLD", "").lower() != "off":
        DATABASES["default"].setdefault("OPTIONS", {}).update(
            server_side_binding=True,
            prepare_threshold=env_int("RADREVIEW_DB_PREPARE_THRESHOLD", 5))
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The web server and the worker write to the same file: WAL lets readers go on while one
    # writes, and IMMEDIATE transactions take the write lock up front instead of failing midway.
    # synchronous=FULL: a commit is answered once it is on disk, so an upload, a decision or a
    # sign-off that was acknowledged survives a power cut, as on PostgreSQL's default; a
    # worker's own connections commit without waiting (celery_fixup.worker_commit_setting).
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;",
        "transaction_mode": "IMMEDIATE",
        "timeout": 30,
    }
    DATABASES["default"]["TEST"] = {"NAME": str(DATA_DIR / "test_radreview.sqlite3")}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# A cache every process shares (the per-address sign-in rate counts across web workers).
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.db.DatabaseCache",
        "LOCATION": "radreview_cache",
    }
}

# --- Accounts ------------------------------------------------------------------------------

AUTH_USER_MODEL = "accounts.User"
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "studies:worklist"
LOGOUT_REDIRECT_URL = "accounts:login"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
     "OPTIONS": {"min_length": 10}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# django-axes checks every password sign-in (web, admin, API token) before the model backend.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
    "radreview.accounts.oidc.RoleMappingOIDCBackend",
]

# Sign-in throttling (docs/security.md). An account is locked after LOGIN_MAX_FAILURES failed
# passwords, from any address, for LOGIN_LOCK_MINUTES or until an admin unlocks it. An address
# may fail LOGIN_ADDRESS_MAX_FAILURES times per LOGIN_ADDRESS_WINDOW seconds, across accounts,
# then waits out the window: a rate limit that never locks the accounts behind a shared address.
LOGIN_MAX_FAILURES = env_int("RADREVIEW_LOGIN_MAX_FAILURES", 5)
LOGIN_LOCK_MINUTES = env_int("RADREVIEW_LOGIN_LOCK_MINUTES", 15)
LOGIN_ADDRESS_MAX_FAILURES = env_int("RADREVIEW_LOGIN_ADDRESS_MAX_FAILURES", 30)
LOGIN_ADDRESS_WINDOW = env_int("RADREVIEW_LOGIN_ADDRESS_WINDOW", 60)
# How many reverse proxies stand in front of the web server (each adds the address it saw to
# X-Forwarded-For); 0 reads the client's address from the connection itself.
TRUSTED_PROXIES = env_int("RADREVIEW_TRUSTED_PROXIES", 0)
AXES_FAILURE_LIMIT = "radreview.accounts.throttling.account_failure_limit"
AXES_COOLOFF_TIME = "radreview.accounts.throttling.account_lock_time"
AXES_LOCKOUT_PARAMETERS = ["username"]
AXES_RESET_ON_SUCCESS = True
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_CLIENT_IP_CALLABLE = "radreview.accounts.throttling.axes_client_ip"
AXES_USERNAME_CALLABLE = "radreview.accounts.throttling.axes_username"
AXES_LOCKOUT_CALLABLE = "radreview.accounts.throttling.lockout_response"
AXES_VERBOSE = False
AXES_DISABLE_ACCESS_LOG = True  # the audit trail records every sign-in
AXES_ENABLE_ADMIN = False  # unlocking goes through the audited action on the users page
# Axes warns that it does not lock addresses: on purpose, addresses are rate-limited instead.
# Django's own CSRF check (security.W003) looks for its middleware by name; ours subclasses it
# (radreview/security/middleware.py), and radreview/security/checks.py checks that instead.
SILENCED_SYSTEM_CHECKS = ["axes.W006", "security.W003"]

# Sessions end after this many seconds without a request made by the person (the pages' own
# polling does not count); the page warns SESSION_IDLE_WARNING_SECONDS before.
SESSION_IDLE_SECONDS = env_int("RADREVIEW_IDLE_MINUTES", 15) * 60
SESSION_IDLE_WARNING_SECONDS = env_int("RADREVIEW_IDLE_WARNING_SECONDS", 120)
# A view of a study is audited once per user and study per this many seconds (docs/security.md,
# "The record"): a client polling a study's status writes one row per window, not one per poll.
# The idle logoff's period by default: a sitting with a study; 0 audits every view.
STUDY_VIEW_AUDIT_SECONDS = env_int("RADREVIEW_VIEW_AUDIT_MINUTES",
                                   SESSION_IDLE_SECONDS // 60) * 60

# Second factor (TOTP, django-otp) for local admin accounts: every local admin sets up an
# authenticator at the first sign-in. A site may turn this off (the setup checklist then warns);
# single sign-on admins get their second factor from the provider either way.
ADMIN_TOTP_REQUIRED = env_bool("RADREVIEW_ADMIN_TOTP_REQUIRED", True)
OTP_TOTP_ISSUER = "RadReview"
# Nobody but its owner sees an authenticator's secret: the admin lists devices (and deletes a
# lost one) but shows no key or QR code.
OTP_ADMIN_HIDE_SENSITIVE_DATA = True

# Single sign-on with OpenID Connect (mozilla-django-oidc); off unless the client is configured.
# The provider's endpoints come from the environment; a claim (a list or a string) carries
# the user's roles and the values below map them to RadReview's (docs/security.md).
OIDC_RP_CLIENT_ID = os.environ.get("RADREVIEW_OIDC_CLIENT_ID", "")
OIDC_ENABLED = bool(OIDC_RP_CLIENT_ID)
OIDC_RP_CLIENT_SECRET = os.environ.get("RADREVIEW_OIDC_CLIENT_SECRET", "")
OIDC_OP_AUTHORIZATION_ENDPOINT = os.environ.get("RADREVIEW_OIDC_AUTHORIZATION_ENDPOINT", "")
OIDC_OP_TOKEN_ENDPOINT = os.environ.get("RADREVIEW_OIDC_TOKEN_ENDPOINT", "")
OIDC_OP_USER_ENDPOINT = os.environ.get("RADREVIEW_OIDC_USERINFO_ENDPOINT", "")
OIDC_OP_JWKS_ENDPOINT = os.environ.get("RADREVIEW_OIDC_JWKS_ENDPOINT", "")
OIDC_RP_SIGN_ALGO = os.environ.get("RADREVIEW_OIDC_SIGN_ALGO", "RS256")
OIDC_RP_SCOPES = os.environ.get("RADREVIEW_OIDC_SCOPES", "openid email profile")
OIDC_ROLES_CLAIM = os.environ.get("RADREVIEW_OIDC_ROLES_CLAIM", "roles")
OIDC_RADIOLOGIST_VALUE = os.environ.get("RADREVIEW_OIDC_RADIOLOGIST_VALUE", "radiologist")
OIDC_ADMIN_VALUE = os.environ.get("RADREVIEW_OIDC_ADMIN_VALUE", "admin")
OIDC_PROVIDER_NAME = os.environ.get("RADREVIEW_OIDC_PROVIDER_NAME", "single sign-on")
OIDC_TIMEOUT = 10
OIDC_USE_PKCE = True
OIDC_AUTHENTICATION_CALLBACK_URL = "accounts:sso_callback"
LOGIN_REDIRECT_URL_FAILURE = "/accounts/login/?sso=refused"
if OIDC_ENABLED:
    missing = [name for name, value in (
        ("RADREVIEW_OIDC_CLIENT_SECRET", OIDC_RP_CLIENT_SECRET),
        ("RADREVIEW_OIDC_AUTHORIZATION_ENDPOINT", OIDC_OP_AUTHORIZATION_ENDPOINT),
        ("RADREVIEW_OIDC_TOKEN_ENDPOINT", OIDC_OP_TOKEN_ENDPOINT),
        ("RADREVIEW_OIDC_USERINFO_ENDPOINT", OIDC_OP_USER_ENDPOINT),
        ("RADREVIEW_OIDC_JWKS_ENDPOINT", OIDC_OP_JWKS_ENDPOINT),
    ) if not value]
    if missing:
        raise ImproperlyConfigured("RADREVIEW_OIDC_CLIENT_ID is set, so single sign-on also needs "
                                   + ", ".join(missing))

# --- API -----------------------------------------------------------------------------------

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "radreview.accounts.authentication.ExpiringTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PARSER_CLASSES": [
        "radreview.security.json_limits.BoundedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "radreview.api.exceptions.exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "RadReview API",
    "DESCRIPTION": "Upload chest X-ray studies and reports, follow their audit, review flags.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
}
# API tokens (django-rest-knox): only a hash is stored; each token expires after this many
# hours and is revoked on logout, password change and deactivation.
API_TOKEN_HOURS = env_int("RADREVIEW_API_TOKEN_HOURS", 12)
REST_KNOX = {"TOKEN_TTL": dt.timedelta(hours=API_TOKEN_HOURS), "AUTO_REFRESH": False}
# JSON request bodies: refused (400, with the reason) above this size or nesting depth.
MAX_JSON_BODY_BYTES = env_int("RADREVIEW_MAX_JSON_KB", 1024) * 1024
MAX_JSON_DEPTH = 32


# --- Uploads -------------------------------------------------------------------------------

MAX_UPLOAD_FILE_BYTES = env_int("RADREVIEW_MAX_FILE_MB", 64) * 1024 * 1024
MAX_UPLOAD_STUDY_BYTES = env_int("RADREVIEW_MAX_STUDY_MB", 256) * 1024 * 1024
MAX_REPORT_CHARS = env_int("RADREVIEW_MAX_REPORT_CHARS", 20_000)
MAX_UPLOAD_FILES = env_int("RADREVIEW_MAX_FILES", 64)
# Form fields other than files (a pasted report) above this are refused before any view runs.
DATA_UPLOAD_MAX_MEMORY_SIZE = 4 * 1024 * 1024
DATA_UPLOAD_MAX_NUMBER_FILES = MAX_UPLOAD_FILES + 1
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
FILE_UPLOAD_PERMISSIONS = 0o640
# The first handler stops reading a body as soon as it passes the limits above.
FILE_UPLOAD_HANDLERS = [
    "radreview.studies.upload_limits.UploadLimitHandler",
    "django.core.files.uploadhandler.MemoryFileUploadHandler",
    "django.core.files.uploadhandler.TemporaryFileUploadHandler",
]

# --- Celery --------------------------------------------------------------------------------

BROKER_DIR = DATA_DIR / "broker"
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "filesystem://")
if CELERY_BROKER_URL.startswith("filesystem"):
    for sub in ("queue", "processed", "control"):
        (BROKER_DIR / sub).mkdir(parents=True, exist_ok=True)
    # kombu's filesystem transport, writing each message whole before a worker can take it.
    CELERY_BROKER_TRANSPORT = "radreview.jobs.filesystem_transport:Transport"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "processed_folder": str(BROKER_DIR / "processed"),
        "control_folder": str(BROKER_DIR / "control"),
        "store_processed": False,
        # An idle worker looks for a new message this often (kombu's default is every second,
        # which an upload waited out before its first stage started); a look is one listdir.
        "polling_interval": float(os.environ.get("RADREVIEW_BROKER_POLL_SECONDS", "0.05")),
    }
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_DEFAULT_QUEUE = "cpu"
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# PostgreSQL's synchronous_commit for the worker's own connections (docs/operations.md,
# "What a commit waits for"; on SQLite "off" is synchronous=NORMAL, the rest FULL). A worker
# writes only what it can compute again from durable inputs, and the reconciler does so for a
# job whose done mark a crash lost; the web process, which stores what people send (uploads,
# decisions, sign-offs), waits for the disk.
WORKER_SYNCHRONOUS_COMMIT = os.environ.get("RADREVIEW_WORKER_SYNCHRONOUS_COMMIT", "off")
if WORKER_SYNCHRONOUS_COMMIT not in {"on", "off", "local", "remote_write", "remote_apply"}:
    raise ImproperlyConfigured(
        "RADREVIEW_WORKER_SYNCHRONOUS_COMMIT must be one of on, off, local, remote_write, "
        f"remote_apply, not {WORKER_SYNCHRONOUS_COMMIT!r}")
# Jobs whose worker stopped sending heartbeats for this long are taken over by a new worker.
JOB_HEARTBEAT_SECONDS = env_int("RADREVIEW_JOB_HEARTBEAT_SECONDS", 10)
JOB_STALE_AFTER_SECONDS = env_int("RADREVIEW_JOB_STALE_AFTER_SECONDS", 120)
JOB_MAX_ATTEMPTS = env_int("RADREVIEW_JOB_MAX_ATTEMPTS", 3)
# Every worker reconciles the job rows with the broker this often (radreview/jobs/reconcile.py;
# 0 turns it off): a job queued for JOB_RESEND_AFTER_SECONDS with no message in the broker is
# sent again; one the broker refused JOB_MAX_SEND_FAILURES times in a row is marked failed.
RECONCILE_SECONDS = float(os.environ.get("RADREVIEW_RECONCILE_SECONDS") or 30)
JOB_RESEND_AFTER_SECONDS = float(os.environ.get("RADREVIEW_JOB_RESEND_AFTER_SECONDS") or 30)
JOB_MAX_SEND_FAILURES = env_int("RADREVIEW_JOB_MAX_SEND_FAILURES", 10)
# On the single-machine default (SQLite, the filesystem broker), the worklist and the upload
# page say that the default is the limit once more than this many jobs are queued (0: never).
SINGLE_MACHINE_QUEUE_NOTICE = env_int("RADREVIEW_SINGLE_MACHINE_QUEUE_NOTICE", 100)
# While the database or the broker is unreachable, requests are answered 503 with this
# Retry-After (radreview/outages); the outage page reloads itself after as long.
OUTAGE_RETRY_AFTER_SECONDS = env_int("RADREVIEW_OUTAGE_RETRY_AFTER_SECONDS", 5)
# Upload files that no study owns (a web worker killed mid-upload) are removed when a worker
# starts, once they are this old: an upload still in its transaction is never touched.
ORPHAN_UPLOAD_SECONDS = env_int("RADREVIEW_ORPHAN_UPLOAD_SECONDS", 3600)

# --- Reference libraries -------------------------------------------------------------------

# FAISS indexes of the reference library (text reports, images) live here; with
# RADREVIEW_MEDIA_STORE=s3 the bucket holds them and this folder is the host's copy.
INDEX_DIR = Path(os.environ.get("RADREVIEW_INDEX_DIR", DATA_DIR / "indexes")).resolve()
HNSW_M = env_int("RADREVIEW_HNSW_M", 32)
HNSW_EF_CONSTRUCTION = env_int("RADREVIEW_HNSW_EF_CONSTRUCTION", 200)
HNSW_EF_SEARCH = env_int("RADREVIEW_HNSW_EF_SEARCH", 128)
# Libraries smaller than this are searched exactly; larger ones through HNSW.
INDEX_EXACT_BELOW = env_int("RADREVIEW_INDEX_EXACT_BELOW", 20_000)
# With the indexes in the object store, a worker asks the store whether a new version was
# published at most this often (a GET per study otherwise: 7 ms of a 30 ms study); a new
# version reaches every worker within this many seconds. Writers always ask.
INDEX_CHECK_SECONDS = env_int("RADREVIEW_INDEX_CHECK_SECONDS", 10)

# --- Model roles ---------------------------------------------------------------------------

# One setting per role: "builtin" or a backend spec (see docs/models.md).
MODEL_ROLES = {
    "llm": os.environ.get("RADREVIEW_LLM", "builtin"),
    "generator": os.environ.get("RADREVIEW_GENERATOR", "builtin"),
    "text_embedder": os.environ.get("RADREVIEW_TEXT_EMBEDDER", "builtin"),
    "image_encoder": os.environ.get("RADREVIEW_IMAGE_ENCODER", "builtin"),
    "extractor": os.environ.get("RADREVIEW_EXTRACTOR", "builtin"),
}

# --- RadFlag (sampling, support, flags; docs/radflag.md) -----------------------------------


def _radflag_float(name: str, default: float, low: float, high: float) -> float:
    value = os.environ.get(name)
    if not value:
        return default
    try:
        number = float(value)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} must be a number, got {value!r}") from exc
    if not low <= number <= high:
        raise ImproperlyConfigured(f"{name} must be between {low} and {high}, got {value!r}")
    return number


# A site's own detectors, "module:attribute" naming a workers.detectors.DetectorSpec each;
# the web process and the workers declare them at start-up (docs/detections.md).
DETECTOR_PLUGINS = env_list("RADREVIEW_DETECTOR_PLUGINS", [])

# The sample stage: n samples at RADFLAG_TEMPERATURE, the candidate (when no report was
# uploaded) at RADFLAG_CANDIDATE_TEMPERATURE, each at most RADFLAG_MAX_TOKENS tokens.
RADFLAG_SAMPLES = env_int("RADREVIEW_RADFLAG_SAMPLES", 10)
RADFLAG_TEMPERATURE = _radflag_float("RADREVIEW_RADFLAG_TEMPERATURE", 1.0, 0.0, 2.0)
RADFLAG_CANDIDATE_TEMPERATURE = _radflag_float(
    "RADREVIEW_RADFLAG_CANDIDATE_TEMPERATURE", 0.1, 0.0, 2.0
)
RADFLAG_MAX_TOKENS = env_int("RADREVIEW_RADFLAG_MAX_TOKENS", 256)
# Without an active calibration: a sentence is flagged when fewer than this share of its
# samples support it (λ1 = ceil(share · n): 3 of 10), a report when it has at least
# RADFLAG_DEFAULT_LAMBDA2 flagged sentences.
RADFLAG_DEFAULT_MIN_SUPPORT = _radflag_float("RADREVIEW_RADFLAG_DEFAULT_MIN_SUPPORT", 0.3, 0.0, 1.0)
RADFLAG_DEFAULT_LAMBDA2 = env_int("RADREVIEW_RADFLAG_DEFAULT_LAMBDA2", 2)
# Samples uploaded with a study (made by a generator outside RadReview).
RADFLAG_MIN_UPLOADED_SAMPLES = 2
RADFLAG_MAX_UPLOADED_SAMPLES = env_int("RADREVIEW_RADFLAG_MAX_UPLOADED_SAMPLES", 50)
# Calibration files uploaded on the admin page.
RADFLAG_MAX_CALIBRATION_MB = env_int("RADREVIEW_RADFLAG_MAX_CALIBRATION_MB", 64)
if RADFLAG_SAMPLES < 2 or RADFLAG_DEFAULT_LAMBDA2 < 1 or RADFLAG_MAX_TOKENS < 1:
    raise ImproperlyConfigured(
        "RADREVIEW_RADFLAG_SAMPLES must be at least 2, RADREVIEW_RADFLAG_DEFAULT_LAMBDA2 and "
        "RADREVIEW_RADFLAG_MAX_TOKENS at least 1"
    )
# Calibrating the system combination on the radiologists' decisions needs at least this many
# sentences judged wrong, and as many judged right, among those the combination scored.
COMBINATION_CALIBRATION_MINIMUM = env_int("RADREVIEW_COMBINATION_CALIBRATION_MINIMUM", 20)
if COMBINATION_CALIBRATION_MINIMUM < 1:
    raise ImproperlyConfigured("RADREVIEW_COMBINATION_CALIBRATION_MINIMUM must be at least 1")

# --- Image memory, V-RAG, RA-RRG (docs/images.md) ------------------------------------------

# The image memory lives in INDEX_DIR/image_memory/ (HNSW settings above). V-RAG probes the
# VRAG_TOP_K most similar reference images; RA-RRG selects the key phrases whose selection
# score over the RARRG_NEIGHBOURS most similar images reaches RARRG_SELECTION_THRESHOLD.
VRAG_TOP_K = env_int("RADREVIEW_VRAG_TOP_K", 5)
RARRG_NEIGHBOURS = env_int("RADREVIEW_RARRG_NEIGHBOURS", 10)
RARRG_SELECTION_THRESHOLD = float(os.environ.get("RADREVIEW_RARRG_SELECTION_THRESHOLD") or 0.4)
# "knn" (the simple form) or "trained" (the checkpoint written by train_phrase_retriever).
RARRG_RETRIEVER = os.environ.get("RADREVIEW_RARRG_RETRIEVER", "knn")
RARRG_RETRIEVER_CHECKPOINT = INDEX_DIR / "phrase_retriever.pt"
if RARRG_RETRIEVER not in ("knn", "trained"):
    raise ImproperlyConfigured(f"RADREVIEW_RARRG_RETRIEVER must be knn or trained, got "
                               f"{RARRG_RETRIEVER!r}")
if not 0.0 <= RARRG_SELECTION_THRESHOLD <= 1.0 or VRAG_TOP_K < 1 or RARRG_NEIGHBOURS < 1:
    raise ImproperlyConfigured("RADREVIEW_RARRG_SELECTION_THRESHOLD must be in [0, 1]; "
                               "RADREVIEW_VRAG_TOP_K and RADREVIEW_RARRG_NEIGHBOURS at least 1")
# The admin's image import reads server folders below this one (or an uploaded ZIP file).
LIBRARY_IMPORT_ROOT = Path(os.environ.get("RADREVIEW_LIBRARY_IMPORT_ROOT",
                                          DATA_DIR / "import")).resolve()
# Window/level renders of study and reference images, made on demand, are cached here.
RENDER_CACHE_SUBDIR = "cache/renders"

# --- DICOM network: receiver, PACS destination, DICOMweb source (docs/dicom.md) ----------

DICOM_AE_TITLE = os.environ.get("RADREVIEW_DICOM_AE_TITLE", "RADREVIEW")
# Loopback only unless an address is given: a receiver open to the network is a choice.
DICOM_HOST = os.environ.get("RADREVIEW_DICOM_HOST", "127.0.0.1")
DICOM_PORT = env_int("RADREVIEW_DICOM_PORT", 11112)
# Calling AE titles allowed to store and echo; empty allows any (loopback default only).
DICOM_ALLOWED_AES = env_list("RADREVIEW_DICOM_ALLOWED_AES", [])
# A received study is queued when no instance of it arrived for this many seconds.
DICOM_QUIET_SECONDS = env_int("RADREVIEW_DICOM_QUIET_SECONDS", 30)
if len(DICOM_AE_TITLE) > 16 or not DICOM_AE_TITLE.strip():
    raise ImproperlyConfigured("RADREVIEW_DICOM_AE_TITLE must have 1 to 16 characters")
if DICOM_HOST not in ("127.0.0.1", "localhost", "::1") and not DICOM_ALLOWED_AES:
    raise ImproperlyConfigured(
        "RADREVIEW_DICOM_HOST opens the DICOM receiver beyond loopback: list the senders allowed "
        "in RADREVIEW_DICOM_ALLOWED_AES (their calling AE titles)")


# --- Reports from the dictation system or the RIS: HL7 v2 over MLLP (docs/hl7.md) ---------

HL7_HOST = os.environ.get("RADREVIEW_HL7_HOST", "127.0.0.1")
HL7_PORT = env_int("RADREVIEW_HL7_PORT", 2575)
# Sending applications (MSH-3) allowed to deliver reports; empty allows any (loopback only).
HL7_ALLOWED_SENDERS = env_list("RADREVIEW_HL7_ALLOWED_SENDERS", [])
if HL7_HOST not in ("127.0.0.1", "localhost", "::1") and not HL7_ALLOWED_SENDERS:
    raise ImproperlyConfigured(
        "RADREVIEW_HL7_HOST opens the HL7 listener beyond loopback: list the sending "
        "applications allowed (MSH-3) in RADREVIEW_HL7_ALLOWED_SENDERS")


def _dicom_node(name: str) -> dict | None:
    """"AE_TITLE@host:port" as {"ae_title", "host", "port"}; None when unset."""
    value = os.environ.get(name, "").strip()
    if not value:
        return None
    ae_title, at, address = value.partition("@")
    host, colon, port = address.rpartition(":")
    if not (at and colon and ae_title and host and port.isdigit() and len(ae_title) <= 16):
        raise ImproperlyConfigured(f"{name} must look like AE_TITLE@host:port, got {value!r}")
    return {"ae_title": ae_title, "host": host, "port": int(port)}


# Where signed reports go as DICOM SR (C-STORE); none configured: they are only exported.
PACS_STORE = _dicom_node("RADREVIEW_PACS_STORE")
# The PACS's DICOMweb root for "Import from PACS" (QIDO-RS search, WADO-RS retrieve).
PACS_DICOMWEB_URL = os.environ.get("RADREVIEW_PACS_DICOMWEB_URL", "").rstrip("/")
PACS_DICOMWEB_USER = os.environ.get("RADREVIEW_PACS_DICOMWEB_USER", "")
PACS_DICOMWEB_PASSWORD = os.environ.get("RADREVIEW_PACS_DICOMWEB_PASSWORD", "")
PACS_TIMEOUT_SECONDS = env_int("RADREVIEW_PACS_TIMEOUT_SECONDS", 30)
# A failed SR send is tried again after this many seconds, doubling up to the maximum.
SR_RETRY_SECONDS = env_int("RADREVIEW_SR_RETRY_SECONDS", 30)
SR_RETRY_MAX_SECONDS = env_int("RADREVIEW_SR_RETRY_MAX_SECONDS", 15 * 60)

# --- Internationalisation ------------------------------------------------------------------

LANGUAGE_CODE = "en-us"
TIME_ZONE = os.environ.get("RADREVIEW_TIME_ZONE", "UTC")
USE_I18N = False
USE_TZ = True

# --- Logging -------------------------------------------------------------------------------

# Log lines name studies by their internal id only; patient identifiers never reach a log.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "filters": {"skip_outages": {"()": "radreview.outages.logs.SkipOutageErrors"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("RADREVIEW_LOG_LEVEL", "INFO")},
    "loggers": {
        "faiss.loader": {"level": "WARNING"},  # lists every CPU variant it tries
        # Outages are logged once by radreview/outages, not once per request here.
        "django.request": {"level": "ERROR", "filters": ["skip_outages"]},
        "axes": {"level": "WARNING"},  # every sign-in is in the audit trail already
    },
}
