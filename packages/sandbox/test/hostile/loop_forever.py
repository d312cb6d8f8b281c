# Hostile deliverable: never returns, never sleeps.
while True:
    pass
