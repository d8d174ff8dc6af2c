"""The decision loop: tree state, tools, policies, answerers and traces."""
