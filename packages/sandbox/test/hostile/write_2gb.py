# Hostile deliverable: writes a 2 GB file into its own folder.
block = b"z" * (1024 * 1024)
with open("huge.bin", "wb") as f:
    for _ in range(2 * 1024):
        f.write(block)
print("wrote 2 GB")
