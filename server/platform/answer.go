package platform

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
)

// moduleAnswer is what the platform reads of a module's answer. Besides
// the contract's {"data":{...}} and {"error":{"message"}}, the platform's
// SDK answers its own refusals in other shapes: {"error":"Access denied"}
// (403, a JWT it does not accept) and {"message":LINK,"code":402} (402,
// the organization's subscription has expired). Each is read, so that
// the upload's answer says what the app said.
type moduleAnswer struct {
	data *struct {
		Strings    json.RawMessage `json:"strings"`
		StringsURL string          `json:"stringsUrl"`
	}
	hasError bool
	message  string
	link     string
}

func readAnswer(body []byte) (moduleAnswer, error) {
	var raw struct {
		Data *struct {
			Strings    json.RawMessage `json:"strings"`
			StringsURL string          `json:"stringsUrl"`
		} `json:"data"`
		Error         json.RawMessage `json:"error"`
		Message       json.RawMessage `json:"message"`
		SubscribeLink string          `json:"subscribeLink"`
		SubscribeLnk2 string          `json:"subscribe_link"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return moduleAnswer{}, err
	}
	a := moduleAnswer{data: raw.Data, message: jsonText(raw.Message), link: raw.SubscribeLink}
	if a.link == "" {
		a.link = raw.SubscribeLnk2
	}
	if len(raw.Error) > 0 && string(raw.Error) != "null" {
		a.hasError = true
		var obj struct {
			Message json.RawMessage `json:"message"`
		}
		if json.Unmarshal(raw.Error, &obj) == nil && obj.Message != nil {
			a.message = jsonText(obj.Message)
		} else if t := jsonText(raw.Error); t != "" {
			a.message = t
		}
	}
	return a, nil
}

// jsonText is a JSON string's text, or the compact JSON of another value
// (empty for null or nothing).
func jsonText(v json.RawMessage) string {
	if len(v) == 0 || string(v) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	var x any
	if json.Unmarshal(v, &x) != nil {
		return ""
	}
	b, _ := json.Marshal(x)
	return string(b)
}

// paymentRequired is the failure of a job the app refused with 402: the
// organization's subscription is not active. The link is the answer's
// subscribeLink (subscribe_link), else its message when that is an
// http(s) URL (the platform's SDK sends the link as the message).
func paymentRequired(who string, a moduleAnswer) *importError {
	link := a.link
	if link == "" {
		if u, err := url.Parse(a.message); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
			link = a.message
		}
	}
	msg := fmt.Sprintf("%s needs an active subscription in this organization", who)
	switch {
	case link != "":
		msg += ": subscribe at " + link
	case a.message != "":
		msg += ": " + a.message
	}
	return &importError{status: http.StatusPaymentRequired, msg: msg + "; nothing was imported", link: link}
}
