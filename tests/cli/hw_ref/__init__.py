"""Independent Python references of the systems ixa's layout ops model
(stdlib only), and the request generators of tests/cli/hw_conformance.py."""
