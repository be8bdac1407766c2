# The wire contract (proto/README.md): regenerate src/gen from proto/, and the
# reference fingerprint the contract test compares against.
.PHONY: proto contract-fingerprint

proto: deps-npm
	rm -rf src/gen
	cd proto && ../node_modules/.bin/buf generate

contract-fingerprint: deps-npm
	$(BUN) tools/contract-fingerprint.ts
