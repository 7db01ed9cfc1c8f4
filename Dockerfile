# One image for the web server, the Celery workers and the cluster mirror
# (docker-compose.yml, deploy/kubernetes/).
#
# BASE_IMAGE is any Debian bookworm image with Python 3.11 as `python3` and
# its venv module: the official python:3.11-slim-bookworm by default, or the
# image `make image` builds with debootstrap where no image registry is
# reachable (deploy/docker/debian-base.sh).
ARG BASE_IMAGE=python:3.11-slim-bookworm

# ---- build: dependencies into a virtualenv, static files, deployment checks
FROM ${BASE_IMAGE} AS build

# PEM certificates of a TLS-inspecting proxy between the build and the package
# index; trusted in this stage only, never in the image that ships.
ARG EXTRA_CA_CERTS=""
RUN if [ -n "$EXTRA_CA_CERTS" ]; then \
        printf '%s\n' "$EXTRA_CA_CERTS" > /usr/local/share/ca-certificates/build-extra.crt \
        && update-ca-certificates >/dev/null; \
    fi
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_CERT=/etc/ssl/certs/ca-certificates.crt \
    PYTHONDONTWRITEBYTECODE=1

# Only the runtime dependencies of pyproject.toml (not the dev extra): the
# project itself runs from /app, where manage.py, templates and static live.
# Not shipped: pip, setuptools, numpy's test-suite and the kubernetes
# package's asyncio client (68 MB, never imported: the mirror uses the other).
COPY pyproject.toml /tmp/pyproject.toml
RUN python3 -m venv /opt/venv \
    && python3 -c "import tomllib; print('\n'.join(tomllib.load(open('/tmp/pyproject.toml', 'rb'))['project']['dependencies']))" \
        > /tmp/requirements.txt \
    && /opt/venv/bin/pip install --quiet --requirement /tmp/requirements.txt \
    && /opt/venv/bin/pip uninstall --quiet --yes pip setuptools \
    && cd /opt/venv/lib/python3.11/site-packages \
    && rm -rf kubernetes/aio numpy/*/tests numpy/tests

WORKDIR /app
COPY manage.py ./
COPY schedlab ./schedlab
COPY dashboard ./dashboard
COPY scheduler_engine ./scheduler_engine
COPY templates ./templates
COPY static ./static

ENV PATH=/opt/venv/bin:$PATH \
    PYTHONPATH=/app \
    DJANGO_SETTINGS_MODULE=schedlab.settings.production
# Production settings with a throwaway strong key and unreachable services (no
# connection is made): static files collected once here, and the build fails
# unless `check --deploy` has nothing to say about the shipped defaults.
RUN export DJANGO_SECRET_KEY="$(python -c 'import secrets; print(secrets.token_urlsafe(64))')" \
        DATABASE_URL=postgres://build@127.0.0.1:9/build \
        REDIS_URL=redis://127.0.0.1:9/0 \
        DJANGO_ALLOWED_HOSTS=schedlab.example \
    && python manage.py collectstatic --noinput --verbosity 0 \
    && python manage.py check --deploy --fail-level WARNING \
    && python -m compileall -q -j 0 /app

# ---- the image: the virtualenv and the application, run as a non-root user
FROM ${BASE_IMAGE}

LABEL org.opencontainers.image.title="schedlab" \
      org.opencontainers.image.description="Mirror a Kubernetes cluster, replay kube-scheduler decisions and explain them" \
      org.opencontainers.image.licenses="Apache-2.0"

ENV PATH=/opt/venv/bin:$PATH \
    PYTHONPATH=/app \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    DJANGO_SETTINGS_MODULE=schedlab.settings.production \
    SCHEDLAB_VAR_DIR=/tmp/schedlab

RUN groupadd --system --gid 10001 schedlab \
    && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /app \
        --shell /usr/sbin/nologin schedlab
COPY --from=build /opt/venv /opt/venv
COPY --from=build /app /app
WORKDIR /app
USER 10001:10001

EXPOSE 8000
# The web server's probe; docker-compose.yml gives the worker and the mirror theirs.
HEALTHCHECK --interval=10s --timeout=15s --start-period=60s --retries=3 \
    CMD ["python", "-m", "schedlab.probe", "web"]
# SCHEDLAB_WEB_PROCESSES Daphne processes on one port (schedlab/serve.py), one core each;
# --verbosity 0: requests are logged as JSON by schedlab.access_log, not in plain text.
CMD ["python", "-m", "schedlab.serve", "--bind", "0.0.0.0", "--port", "8000", "--proxy-headers", "--verbosity", "0", "schedlab.asgi:application"]
