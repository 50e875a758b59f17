"""The WebSocket transport: a server's frames read back as messages (:mod:`.frames`), and the
Responses API's WebSocket mode's pure pieces shared by every side that serves it (:mod:`.mode`)."""
