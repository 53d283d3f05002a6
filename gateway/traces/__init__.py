"""Traces over OpenTelemetry (docs/tracing.md). Imported only when `OTEL_*` settings turn
tracing on (`gateway.setting_values.traces_exporter`): without them, none of this runs."""
