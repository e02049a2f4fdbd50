package compile

// RunSelect exposes runSelect to the tests: Run's statement timeout on a
// statement of the test's choosing (a server-side sleep).
var RunSelect = runSelect
