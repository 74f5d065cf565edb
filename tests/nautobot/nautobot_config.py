"""Nautobot settings for the interop tests' throw-away server (tests/nautobot/serve.sh).

A local PostgreSQL on a Unix socket and a local Redis, both started by serve.sh in its state
folder; nothing listens beyond 127.0.0.1. The secret key only signs this test server's sessions.
"""

import os

from nautobot.core.settings import *  # noqa: F401,F403 - Nautobot's defaults, then ours

_STATE = os.environ["NAUTOBOT_TEST_STATE"]
DATABASES = {"default": {"NAME": "nautobot", "USER": os.environ.get("NAUTOBOT_TEST_DB_USER", "postgres"),
                         "PASSWORD": "", "HOST": _STATE, "PORT": os.environ["NAUTOBOT_TEST_PG_PORT"],
                         "ENGINE": "django.db.backends.postgresql", "CONN_MAX_AGE": 300}}
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
SECRET_KEY = "cluster-designer-test-server-only-0123456789abcdefghijklmnop"
_REDIS = f"redis://127.0.0.1:{os.environ['NAUTOBOT_TEST_REDIS_PORT']}"
CACHES = {"default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": f"{_REDIS}/0",
                      "TIMEOUT": 300, "OPTIONS": {"CLIENT_CLASS": "django_redis.client.DefaultClient"}}}
CELERY_BROKER_URL = f"{_REDIS}/1"
CELERY_RESULT_BACKEND = f"{_REDIS}/2"
