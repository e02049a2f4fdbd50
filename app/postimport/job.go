package postimport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// JobType is the jobType of a post-import job in the platform's
// documentation (seed 2.3); JobTypeSDK is the spelling of the platform's own
// app SDK. The handler accepts both (see JobTypes).
const (
	JobType    = "file-post-import"
	JobTypeSDK = "post-import-file"
)

// Job is the request the platform sends to the module URL (seed 2.3).
type Job struct {
	JobType         string       `json:"jobType"`
	Organization    Organization `json:"organization"`
	Project         Project      `json:"project"`
	File            File         `json:"file"`
	SourceLanguage  Language     `json:"sourceLanguage"`
	TargetLanguages []Language   `json:"targetLanguages"`
	// Strings are the parsed strings. The handler fills them from
	// StringsURL when the platform sent that instead.
	Strings []String `json:"strings,omitempty"`
	// StringsURL is the newline-delimited JSON form of the strings.
	StringsURL string `json:"stringsUrl,omitempty"`
}

// Organization is the job's organization.
type Organization struct {
	ID         int64  `json:"id"`
	Domain     string `json:"domain"`
	BaseURL    string `json:"baseUrl"`
	APIBaseURL string `json:"apiBaseUrl"`
}

// Project is the job's project.
type Project struct {
	ID         int64  `json:"id"`
	Identifier string `json:"identifier"`
	Name       string `json:"name"`
}

// File is the imported file.
type File struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
	// Content is the file as base64 (as sent).
	Content string `json:"content,omitempty"`
	// ContentURL is the public URL of the file (as sent).
	ContentURL string `json:"contentUrl,omitempty"`
	// Data is the file's bytes, filled by the handler from ContentURL or
	// Content; nil when the platform sent neither.
	Data []byte `json:"-"`
}

// Language is a language object (seed 2.3).
type Language struct {
	ID                  string   `json:"id"`
	Name                string   `json:"name"`
	EditorCode          string   `json:"editorCode"`
	TwoLettersCode      string   `json:"twoLettersCode"`
	ThreeLettersCode    string   `json:"threeLettersCode"`
	Locale              string   `json:"locale"`
	AndroidCode         string   `json:"androidCode"`
	OSXCode             string   `json:"osxCode"`
	OSXLocale           string   `json:"osxLocale"`
	PluralCategoryNames []string `json:"pluralCategoryNames"`
	PluralRules         string   `json:"pluralRules"`
}

// TargetLanguage returns the target language with the given id.
func (j *Job) TargetLanguage(id string) (Language, bool) {
	for _, l := range j.TargetLanguages {
		if l.ID == id {
			return l, true
		}
	}
	return Language{}, false
}

// Response is the answer to the platform (seed 2.4): either Data or Error.
type Response struct {
	Data  *ResponseData  `json:"data,omitempty"`
	Error *ResponseError `json:"error,omitempty"`
}

// ResponseData carries the strings inline or as a URL of an NDJSON file.
type ResponseData struct {
	Strings    []String `json:"strings,omitempty"`
	StringsURL string   `json:"stringsUrl,omitempty"`
}

// ResponseError carries the message shown to the user.
type ResponseError struct {
	Message string `json:"message"`
}

// Processor is the app's post-import function. It receives the job with
// File.Data and Strings loaded, and returns the strings to import. ctx ends
// before the platform stops waiting; a processor should honour it.
//
// Returning job.Strings unchanged imports the strings as they came; an empty
// non-nil slice removes them all; ErrNotModified answers "not modified". An
// error wrapping a *UserError shows its message to the user; other errors
// show a generic message (see Config.ExposeErrors) and are logged.
type Processor interface {
	Process(ctx context.Context, job *Job) ([]String, error)
}

// ProcessorFunc adapts a function to Processor.
type ProcessorFunc func(ctx context.Context, job *Job) ([]String, error)

// Process calls f.
func (f ProcessorFunc) Process(ctx context.Context, job *Job) ([]String, error) { return f(ctx, job) }

// ErrNotModified tells the handler to answer HTTP 304 with no body: the
// platform keeps the strings it parsed.
var ErrNotModified = errors.New("postimport: strings not modified")

// UserError is a failure whose message is meant for the user; the handler
// answers it as error.message.
type UserError struct {
	Message string
	Err     error
}

// Error returns the message shown to the user.
func (e *UserError) Error() string {
	if e.Message == "" && e.Err != nil {
		return e.Err.Error()
	}
	return e.Message
}

func (e *UserError) Unwrap() error { return e.Err }

// Errorf returns a *UserError with a formatted message. A %w verb wraps its
// operand as the cause (and its text becomes part of the message).
func Errorf(format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &UserError{Message: err.Error(), Err: errors.Unwrap(err)}
}

// DecodeJob decodes a job request body (without loading StringsURL or the
// file; the handler does that).
func DecodeJob(body []byte) (*Job, error) {
	var job Job
	if err := json.Unmarshal(body, &job); err != nil {
		return nil, err
	}
	return &job, nil
}
