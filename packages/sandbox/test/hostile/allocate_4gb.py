# Hostile deliverable: asks for 4 GB and touches every page of it.
chunks = []
for _ in range(4 * 1024):
    block = bytearray(1024 * 1024)
    block[::4096] = b"x" * len(block[::4096])
    chunks.append(block)
print("allocated 4 GB")
