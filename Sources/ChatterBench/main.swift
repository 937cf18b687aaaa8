print("usage: chatter-bench <scenario>")
