# One image for the web server, the Celery worker and the mirror (docker-compose.yml).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    DJANGO_SETTINGS_MODULE=schedlab.settings.production

WORKDIR /app
COPY pyproject.toml README.md ./
COPY scheduler_engine ./scheduler_engine
COPY schedlab ./schedlab
COPY dashboard ./dashboard
RUN pip install .
COPY manage.py ./
COPY templates ./templates
COPY static ./static
# collectstatic needs settings but no database; a throwaway key/URLs satisfy production settings.
RUN DJANGO_SECRET_KEY=build DATABASE_URL=sqlite:////tmp/build.db REDIS_URL=redis://build:6379/0 \
    python manage.py collectstatic --noinput -v 0

RUN useradd --create-home --uid 10001 schedlab
USER schedlab
EXPOSE 8000
CMD ["daphne", "-b", "0.0.0.0", "-p", "8000", "schedlab.asgi:application"]
