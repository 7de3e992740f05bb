"""Signed webhooks: each app's endpoint settings and API, the delivery worker (delivery.py), the signing keys
(signing_keys.py); events and their deliveries are written through the outbox (platform/outbox.py)."""
