# Reports what the code runs as: its uid, its effective and bounding capability sets, and no_new_privs.
import os
import re


def who_am_i():
    status = open("/proc/self/status").read()
    field = lambda name: re.search(rf"^{name}:\s*(\S+)", status, re.M).group(1)
    return [os.getuid(), field("CapEff"), field("NoNewPrivs")]
