# Images from an OCI registry (docs/install.md "OCI images"): the tests run Debian's
# docker-registry (the CNCF distribution registry) on loopback with TLS and htpasswd
# (apache2-utils), and push the test OS with skopeo; umoci for inspecting layouts by hand.
APT_PACKAGES += docker-registry skopeo umoci apache2-utils
