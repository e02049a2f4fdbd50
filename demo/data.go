package demo

import "github.com/croql/croql/schema"

// The fixed parts of the demo project: people, languages, files, and the
// phrase tables strings, TM segments and glossary terms are made from.

var userLogins = []string{"alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"}

// Roles, as indexes into userLogins.
var (
	translators = []int{0, 1, 2, 3}
	proofreader = []int{4, 5}
	managers    = []int{6, 7}
)

func userID(i int) int64 { return int64(11 + i) }

const sourceLang = "en"

var targetLangs = []string{"de", "fr", "es", "uk", "ja"}

func languages() []schema.LanguageInfo {
	return []schema.LanguageInfo{
		{ID: "en", Name: "English", EditorCode: "en", TwoLettersCode: "en", ThreeLettersCode: "eng", Locale: "en-US",
			AndroidCode: "en-rUS", OSXCode: "en.lproj", OSXLocale: "en",
			PluralCategoryNames: []string{"one", "other"}, PluralRules: "(n != 1)"},
		{ID: "de", Name: "German", EditorCode: "de", TwoLettersCode: "de", ThreeLettersCode: "deu", Locale: "de-DE",
			AndroidCode: "de-rDE", OSXCode: "de.lproj", OSXLocale: "de",
			PluralCategoryNames: []string{"one", "other"}, PluralRules: "(n != 1)"},
		{ID: "fr", Name: "French", EditorCode: "fr", TwoLettersCode: "fr", ThreeLettersCode: "fra", Locale: "fr-FR",
			AndroidCode: "fr-rFR", OSXCode: "fr.lproj", OSXLocale: "fr",
			PluralCategoryNames: []string{"one", "other"}, PluralRules: "(n > 1)"},
		{ID: "es", Name: "Spanish", EditorCode: "es", TwoLettersCode: "es", ThreeLettersCode: "spa", Locale: "es-ES",
			AndroidCode: "es-rES", OSXCode: "es.lproj", OSXLocale: "es",
			PluralCategoryNames: []string{"one", "other"}, PluralRules: "(n != 1)"},
		{ID: "uk", Name: "Ukrainian", EditorCode: "uk", TwoLettersCode: "uk", ThreeLettersCode: "ukr", Locale: "uk-UA",
			AndroidCode: "uk-rUA", OSXCode: "uk.lproj", OSXLocale: "uk",
			PluralCategoryNames: []string{"one", "few", "many", "other"},
			PluralRules:         "((n%10==1 && n%100!=11) ? 0 : ((n%10 >= 2 && n%10 <=4 && (n%100 < 12 || n%100 > 14)) ? 1 : ((n%10 == 0 || (n%10 >= 5 && n%10 <=9)) || (n%100 >= 11 && n%100 <= 14)) ? 2 : 3))"},
		{ID: "ja", Name: "Japanese", EditorCode: "ja", TwoLettersCode: "ja", ThreeLettersCode: "jpn", Locale: "ja-JP",
			AndroidCode: "ja-rJP", OSXCode: "ja.lproj", OSXLocale: "ja",
			PluralCategoryNames: []string{"other"}, PluralRules: "0"},
	}
}

func strp(s string) *string { return &s }

func files() []schema.File {
	return []schema.File{
		{ID: 1, Name: "checkout.json", Title: strp("Checkout flow"), Type: "json", Context: "Web shop, checkout pages"},
		{ID: 2, Name: "account.json", Type: "json", Context: ""},
		{ID: 3, Name: "strings.xml", Title: strp("Android app"), Type: "android", Context: "Mobile app for Android"},
		{ID: 4, Name: "Localizable.stringsdict", Type: "stringsdict", Context: "iOS plurals"},
		{ID: 5, Name: "landing-page.md", Title: strp("Landing page ☕"), Type: "md", Context: "Marketing site"},
	}
}

func branches() []schema.Branch {
	return []schema.Branch{
		{ID: 1, Name: "main"},
		{ID: 2, Name: "release-2.4", Title: strp("Release 2.4")},
		{ID: 3, Name: "feature/dark-mode", Title: strp("Dark mode 🌙")},
	}
}

// phrase is a source text and its translations, indexed like targetLangs.
// For plural strings, forms holds per language (source first, then
// targetLangs) the text of each plural category.
type phrase struct {
	key   string
	typ   string
	en    string
	tr    [5]string
	forms [6]map[string]string
}

var plainPhrases = []phrase{
	{key: "checkout.button.pay", en: "Pay now", tr: [5]string{"Jetzt bezahlen", "Payer maintenant", "Pagar ahora", "Сплатити зараз", "今すぐ支払う"}},
	{key: "checkout.title", en: "Checkout", tr: [5]string{"Kasse", "Paiement", "Pago", "Оформлення замовлення", "チェックアウト"}},
	{key: "checkout.success", en: "🎉 Order placed!", tr: [5]string{"🎉 Bestellung aufgegeben!", "🎉 Commande passée !", "🎉 ¡Pedido realizado!", "🎉 Замовлення оформлено!", "🎉 ご注文を承りました！"}},
	{key: "cart.empty", en: "Your cart is empty", tr: [5]string{"Ihr Warenkorb ist leer", "Votre panier est vide", "Tu carrito está vacío", "Ваш кошик порожній", "カートは空です"}},
	{key: "cart.button.remove", en: "Remove", tr: [5]string{"Entfernen", "Supprimer", "Eliminar", "Видалити", "削除"}},
	{key: "account.login.title", en: "Sign in", tr: [5]string{"Anmelden", "Se connecter", "Iniciar sesión", "Увійти", "ログイン"}},
	{key: "account.login.email", en: "Email", tr: [5]string{"E-Mail", "E-mail", "Correo electrónico", "Електронна пошта", "メールアドレス"}},
	{key: "account.login.password", en: "Password", tr: [5]string{"Passwort", "Mot de passe", "Contraseña", "Пароль", "パスワード"}},
	{key: "account.login.forgot", en: "Forgot your password?", tr: [5]string{"Passwort vergessen?", "Mot de passe oublié ?", "¿Olvidaste tu contraseña?", "Забули пароль?", "パスワードをお忘れですか？"}},
	{key: "account.settings.title", en: "Settings", tr: [5]string{"Einstellungen", "Paramètres", "Configuración", "Налаштування", "設定"}},
	{key: "account.settings.language", en: "Language", tr: [5]string{"Sprache", "Langue", "Idioma", "Мова", "言語"}},
	{key: "account.logout", en: "Sign out", tr: [5]string{"Abmelden", "Se déconnecter", "Cerrar sesión", "Вийти", "ログアウト"}},
	{key: "common.button.ok", en: "OK", tr: [5]string{"OK", "OK", "Aceptar", "Гаразд", "OK"}},
	{key: "common.button.cancel", en: "Cancel", tr: [5]string{"Abbrechen", "Annuler", "Cancelar", "Скасувати", "キャンセル"}},
	{key: "common.button.save", en: "Save", tr: [5]string{"Speichern", "Enregistrer", "Guardar", "Зберегти", "保存"}},
	{key: "common.error.network", en: "Network error. Please try again.", tr: [5]string{"Netzwerkfehler. Bitte versuchen Sie es erneut.", "Erreur réseau. Veuillez réessayer.", "Error de red. Inténtalo de nuevo.", "Помилка мережі. Спробуйте ще раз.", "ネットワークエラー。もう一度お試しください。"}},
	{key: "common.loading", en: "Loading…", tr: [5]string{"Wird geladen…", "Chargement…", "Cargando…", "Завантаження…", "読み込み中…"}},
	{key: "profile.greeting", en: "Welcome back, {name}!", tr: [5]string{"Willkommen zurück, {name}!", "Bon retour, {name} !", "¡Bienvenido de nuevo, {name}!", "З поверненням, {name}!", "おかえりなさい、{name}さん！"}},
	{key: "search.placeholder", en: "Search products", tr: [5]string{"Produkte suchen", "Rechercher des produits", "Buscar productos", "Пошук товарів", "商品を検索"}},
	{key: "search.no_results", en: "No results for “{query}”", tr: [5]string{"Keine Ergebnisse für „{query}“", "Aucun résultat pour « {query} »", "No hay resultados para «{query}»", "Немає результатів для «{query}»", "「{query}」の検索結果はありません"}},
	{key: "product.add_to_cart", en: "Add to cart", tr: [5]string{"In den Warenkorb", "Ajouter au panier", "Añadir al carrito", "Додати до кошика", "カートに追加"}},
	{key: "product.out_of_stock", en: "Out of stock", tr: [5]string{"Nicht vorrätig", "En rupture de stock", "Agotado", "Немає в наявності", "在庫切れ"}},
	{key: "product.reviews.title", en: "Customer reviews ⭐", tr: [5]string{"Kundenbewertungen ⭐", "Avis clients ⭐", "Opiniones de clientes ⭐", "Відгуки покупців ⭐", "カスタマーレビュー ⭐"}},
	{key: "footer.privacy", en: "Privacy policy", tr: [5]string{"Datenschutzerklärung", "Politique de confidentialité", "Política de privacidad", "Політика конфіденційності", "プライバシーポリシー"}},
	{key: "footer.terms", en: "Terms of service", tr: [5]string{"Nutzungsbedingungen", "Conditions d’utilisation", "Términos del servicio", "Умови використання", "利用規約"}},
	{key: "onboarding.welcome", en: "Welcome to Café Olé ☕", tr: [5]string{"Willkommen bei Café Olé ☕", "Bienvenue chez Café Olé ☕", "Bienvenido a Café Olé ☕", "Ласкаво просимо до Café Olé ☕", "Café Olé へようこそ ☕"}},
	{key: "notifications.enable", en: "Turn on notifications", tr: [5]string{"Benachrichtigungen aktivieren", "Activer les notifications", "Activar notificaciones", "Увімкнути сповіщення", "通知をオンにする"}},
	{key: "order.status.shipped", en: "Your order has shipped 🚚", tr: [5]string{"Ihre Bestellung wurde versandt 🚚", "Votre commande a été expédiée 🚚", "Tu pedido ha sido enviado 🚚", "Ваше замовлення відправлено 🚚", "ご注文の商品を発送しました 🚚"}},
	{key: "app.name", en: "Café Olé", tr: [5]string{"Café Olé", "Café Olé", "Café Olé", "Café Olé", "Café Olé"}},
	{key: "checkout.terms.accept", en: `I agree to the <a href="/terms">terms</a>`, tr: [5]string{`Ich stimme den <a href="/terms">Bedingungen</a> zu`, `J’accepte les <a href="/terms">conditions</a>`, `Acepto los <a href="/terms">términos</a>`, `Я погоджуюся з <a href="/terms">умовами</a>`, `<a href="/terms">利用規約</a>に同意します`}},
}

var icuPhrases = []phrase{
	{key: "cart.items.summary", en: "{count, plural, one {# item in your cart} other {# items in your cart}}", tr: [5]string{
		"{count, plural, one {# Artikel im Warenkorb} other {# Artikel im Warenkorb}}",
		"{count, plural, one {# article dans votre panier} other {# articles dans votre panier}}",
		"{count, plural, one {# artículo en tu carrito} other {# artículos en tu carrito}}",
		"{count, plural, one {# товар у кошику} few {# товари у кошику} many {# товарів у кошику} other {# товару у кошику}}",
		"{count, plural, other {カートに#個の商品}}"}},
	{key: "inbox.reply.notice", en: "{gender, select, female {She replied} male {He replied} other {They replied}}", tr: [5]string{
		"{gender, select, female {Sie hat geantwortet} male {Er hat geantwortet} other {Sie haben geantwortet}}",
		"{gender, select, female {Elle a répondu} male {Il a répondu} other {Iel a répondu}}",
		"{gender, select, female {Ella respondió} male {Él respondió} other {Respondieron}}",
		"{gender, select, female {Вона відповіла} male {Він відповів} other {Вони відповіли}}",
		"{gender, select, other {返信がありました}}"}},
	{key: "order.delivery.date", en: "Arrives on {date, date, long}", tr: [5]string{
		"Lieferung am {date, date, long}", "Livraison le {date, date, long}", "Llega el {date, date, long}",
		"Доставка {date, date, long}", "{date, date, long}にお届け"}},
}

func forms(en1, enN, de1, deN, fr1, frN, es1, esN, uk1, ukF, ukM, ukO, ja string) [6]map[string]string {
	return [6]map[string]string{
		{"one": en1, "other": enN},
		{"one": de1, "other": deN},
		{"one": fr1, "other": frN},
		{"one": es1, "other": esN},
		{"one": uk1, "few": ukF, "many": ukM, "other": ukO},
		{"other": ja},
	}
}

var pluralPhrases = []phrase{
	{key: "notifications.unread", forms: forms(
		"You have %d unread message", "You have %d unread messages",
		"Sie haben %d ungelesene Nachricht", "Sie haben %d ungelesene Nachrichten",
		"Vous avez %d message non lu", "Vous avez %d messages non lus",
		"Tienes %d mensaje sin leer", "Tienes %d mensajes sin leer",
		"У вас %d непрочитане повідомлення", "У вас %d непрочитані повідомлення", "У вас %d непрочитаних повідомлень", "У вас %d непрочитаного повідомлення",
		"未読メッセージが%d件あります")},
	{key: "cart.items.count", forms: forms(
		"%d item", "%d items",
		"%d Artikel", "%d Artikel",
		"%d article", "%d articles",
		"%d artículo", "%d artículos",
		"%d товар", "%d товари", "%d товарів", "%d товару",
		"%d個")},
	{key: "product.reviews.count", forms: forms(
		"%d review", "%d reviews",
		"%d Bewertung", "%d Bewertungen",
		"%d avis", "%d avis",
		"%d reseña", "%d reseñas",
		"%d відгук", "%d відгуки", "%d відгуків", "%d відгуку",
		"%d件のレビュー")},
}

var assetPhrases = []phrase{
	{key: "assets.banner.summer_sale", en: "images/banner-summer-sale.png", tr: [5]string{"images/de/banner-summer-sale.png", "images/fr/banner-summer-sale.png", "images/es/banner-summer-sale.png", "images/uk/banner-summer-sale.png", "images/ja/banner-summer-sale.png"}},
	{key: "assets.video.onboarding", en: "video/onboarding.mp4", tr: [5]string{"video/de/onboarding.mp4", "video/fr/onboarding.mp4", "video/es/onboarding.mp4", "video/uk/onboarding.mp4", "video/ja/onboarding.mp4"}},
	{key: "assets.docs.user_guide", en: "docs/user-guide.pdf", tr: [5]string{"docs/de/user-guide.pdf", "docs/fr/user-guide.pdf", "docs/es/user-guide.pdf", "docs/uk/user-guide.pdf", "docs/ja/user-guide.pdf"}},
}

// phrases is the pool strings cycle through: interleaved so that a small
// project has every type.
func phrasePool() []phrase {
	var pool []phrase
	others := [][]phrase{icuPhrases, pluralPhrases, assetPhrases}
	for i, p := range plainPhrases {
		p.typ = "plain"
		pool = append(pool, p)
		if i%3 == 2 && i/3 < 9 {
			o := others[(i/3)%3][(i/3)/3]
			switch (i / 3) % 3 {
			case 0:
				o.typ = "icu"
			case 1:
				o.typ = "plural"
				o.en = o.forms[0]["other"]
			case 2:
				o.typ = "asset"
			}
			pool = append(pool, o)
		}
	}
	return pool
}

var stringContexts = []string{
	"Button label on the payment page",
	"Shown when the cart has no products",
	"Page title; keep it short",
	"Toast message after an action",
	"Menu item in the account dropdown",
	"Text inside a search field, greyed out",
}

var commentTexts = []string{
	"Is this a verb or a noun here?",
	"The German text doesn't fit the button 😬",
	"Please use the glossary term for „Warenkorb“.",
	"Typo in the source: should be “sign in”.",
	"What does {name} contain? A first name?",
	"Context screenshot added.",
	"Approved by marketing ✅",
}

var screenshotNames = []string{"checkout-page.png", "cart-empty.png", "login-form.png", "settings-menu.png", "landing-hero.png"}

var plainLabels = []schema.Label{
	{ID: 1, Title: "mobile"},
	{ID: 2, Title: "web"},
	{ID: 3, Title: "release-2.4"},
	{ID: 4, Title: "needs review 🔍"},
}

// concept is a glossary concept with its term in the source and target
// languages (indexed: source, then targetLangs) and their genders.
type concept struct {
	subject, definition, url, note string
	translatable                   bool
	pos, termType                  string
	terms                          [6]string
	genders                        [6]string
}

var concepts = []concept{
	{subject: "Commerce", definition: "The list of products a customer intends to buy.", url: "https://en.wikipedia.org/wiki/Shopping_cart_software",
		translatable: true, pos: "noun", termType: "full_form",
		terms: [6]string{"cart", "Warenkorb", "panier", "carrito", "кошик", "カート"}, genders: [6]string{"", "masculine", "masculine", "masculine", "masculine", ""}},
	{subject: "Commerce", definition: "The step where the customer pays for the order.",
		translatable: true, pos: "noun", termType: "full_form",
		terms: [6]string{"checkout", "Kasse", "paiement", "pago", "оформлення замовлення", "チェックアウト"}, genders: [6]string{"", "feminine", "masculine", "masculine", "neuter", ""}},
	{subject: "Accounts", definition: "To identify oneself with an email and a password.", note: "Never “log in” in UI texts.",
		translatable: true, pos: "verb", termType: "phrase",
		terms: [6]string{"sign in", "anmelden", "se connecter", "iniciar sesión", "увійти", "ログイン"}},
	{subject: "Accounts", definition: "Secret word that protects an account.",
		translatable: true, pos: "noun", termType: "full_form",
		terms: [6]string{"password", "Passwort", "mot de passe", "contraseña", "пароль", "パスワード"}, genders: [6]string{"", "neuter", "masculine", "feminine", "masculine", ""}},
	{subject: "Brand", definition: "The name of the product. Do not translate.", note: "Keep the accents: Café Olé.",
		translatable: false, pos: "propn", termType: "full_form",
		terms: [6]string{"Café Olé", "Café Olé", "Café Olé", "Café Olé", "Café Olé", "Café Olé"}},
	{subject: "Commerce", definition: "Stock keeping unit: the code that identifies a product.", url: "https://en.wikipedia.org/wiki/Stock_keeping_unit",
		translatable: true, pos: "noun", termType: "acronym",
		terms: [6]string{"SKU", "SKU", "UGS", "SKU", "SKU", "SKU"}},
	{subject: "Accounts", definition: "Electronic mail address of a user.",
		translatable: true, pos: "noun", termType: "short_form",
		terms: [6]string{"email", "E-Mail", "e-mail", "correo", "ел. пошта", "メール"}, genders: [6]string{"", "feminine", "masculine", "masculine", "feminine", ""}},
	{subject: "Commerce", definition: "A saved list of products a customer wants to buy later.",
		translatable: true, pos: "noun", termType: "full_form",
		terms: [6]string{"wishlist", "Wunschliste", "liste de souhaits", "lista de deseos", "список бажань", "ほしい物リスト"}, genders: [6]string{"", "feminine", "feminine", "feminine", "masculine", ""}},
}
