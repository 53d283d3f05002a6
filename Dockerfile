# syntax=docker/dockerfile:1
# Build stage: turn the project into a wheel with its dependencies.
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md constraints.txt ./
COPY gateway gateway
COPY resolvers resolvers
COPY data data
COPY store store
COPY keys keys
# GraphiQL's files, pinned and checked, become package data: the playground needs no internet.
RUN python gateway/playground.py
# The exact versions the tests ran with, not whatever resolves on the day of the build.
RUN pip wheel --no-cache-dir --constraint constraints.txt --wheel-dir /wheels .

# Runtime stage: only the installed package, run as an unprivileged user.
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
RUN useradd --create-home --uid 10001 dynagate
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir /wheels/*.whl && rm -rf /wheels
USER dynagate
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2)"]
ENTRYPOINT ["dynagate"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8000"]
