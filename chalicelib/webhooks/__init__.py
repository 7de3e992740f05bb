"""Signed webhooks: each app's settings and API (settings.py, service.py), the events the outbox records
(events.py, subscribed to platform/outbox.py by the entry point), their deliveries (deliveries.py), the attempts
that make them (attempts.py) and the signing keys (signing_keys.py); the table's layout is in store.py."""
