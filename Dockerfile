# syntax=docker/dockerfile:1
# Both stages start from this image, pinned by digest: a rebuild gets the same system,
# not whatever the tag points to that day. To move on, put in the digest that
# `docker buildx imagetools inspect python:3.11-slim` shows.
ARG PYTHON_IMAGE=python:3.11-slim@sha256:9c900dea9e8fb7e16277c179b555cc72d29a352dbc33cff48ad5a0412fd5bfc7

# Build stage: turn the project into a wheel with its dependencies. The whole context, as
# packaged: pyproject.toml says which packages the wheel holds, so none is left out by a
# list kept here (.dockerignore keeps tests, caches and the like out of the context).
FROM ${PYTHON_IMAGE} AS build
WORKDIR /src
COPY . .
# The exact versions the tests ran with, not whatever resolves on the day of the build. The
# build fetches GraphiQL's pinned files and checks them (`setup.py`): they become package
# data, so the playground needs no internet.
RUN pip wheel --no-cache-dir --constraint constraints.txt --wheel-dir /wheels .

# Runtime stage: only the installed package, run as an unprivileged user.
FROM ${PYTHON_IMAGE}
# Production wherever the image runs, whatever its endpoint's name (a cursor secret and an
# identity required, GraphiQL off, a rate limit); compose says development for its own.
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 DYNAGATE_ENV=production
RUN useradd --create-home --uid 10001 dynagate
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir /wheels/*.whl && rm -rf /wheels
USER dynagate
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2)"]
ENTRYPOINT ["dynagate"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8000"]
