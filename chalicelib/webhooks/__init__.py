"""Signed webhooks: each app's endpoint settings (delivery machinery follows in issue 5)."""
