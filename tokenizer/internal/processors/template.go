package processors

import (
	"encoding/json"
	"fmt"

	"qa-shard/tokenizer/internal/hfjson"
	"qa-shard/tokenizer/tokens"
)

// parseTemplate reads a TemplateProcessing post-processor's pair template
// into the frame of a (question, context) window: $A must come before $B,
// each once, and every special token must have its ids.
func parseTemplate(raw json.RawMessage) (tokens.Template, error) {
	type piece struct {
		SpecialToken *struct {
			ID     string `json:"id"`
			TypeID int32  `json:"type_id"`
		} `json:"SpecialToken"`
		Sequence *struct {
			ID     string `json:"id"`
			TypeID int32  `json:"type_id"`
		} `json:"Sequence"`
	}
	var c struct {
		Type     string  `json:"type"`
		Single   []piece `json:"single"`
		Pair     []piece `json:"pair"`
		Specials map[string]struct {
			ID     string   `json:"id"`
			IDs    []int32  `json:"ids"`
			Tokens []string `json:"tokens"`
		} `json:"special_tokens"`
	}
	var tpl tokens.Template
	if err := hfjson.Strict(raw, &c, "TemplateProcessing"); err != nil {
		return tpl, err
	}
	seen := ""
	for _, p := range c.Pair {
		switch {
		case p.Sequence != nil && p.SpecialToken == nil:
			want := map[string]string{"": "A", "A": "B"}[seen]
			if p.Sequence.ID != want {
				return tpl, fmt.Errorf("TemplateProcessing pair template: sequence $%s where $%s was expected; qa-shard needs the question ($A) before the context ($B), each once", p.Sequence.ID, want)
			}
			seen = p.Sequence.ID
			if seen == "A" {
				tpl.QuestionType = p.Sequence.TypeID
			} else {
				tpl.ContextType = p.Sequence.TypeID
			}
		case p.SpecialToken != nil && p.Sequence == nil:
			sp, ok := c.Specials[p.SpecialToken.ID]
			if !ok || len(sp.IDs) == 0 {
				return tpl, fmt.Errorf("TemplateProcessing: special token %q has no ids in special_tokens", p.SpecialToken.ID)
			}
			for _, id := range sp.IDs {
				switch seen {
				case "":
					tpl.Before, tpl.BeforeTypes = append(tpl.Before, id), append(tpl.BeforeTypes, p.SpecialToken.TypeID)
				case "A":
					tpl.Between, tpl.BetweenTypes = append(tpl.Between, id), append(tpl.BetweenTypes, p.SpecialToken.TypeID)
				default:
					tpl.After, tpl.AfterTypes = append(tpl.After, id), append(tpl.AfterTypes, p.SpecialToken.TypeID)
				}
			}
		default:
			return tpl, fmt.Errorf("TemplateProcessing pair template: a piece is neither a SpecialToken nor a Sequence")
		}
	}
	if seen != "B" {
		return tpl, fmt.Errorf("TemplateProcessing pair template lacks $A or $B")
	}
	// The windows after the first keep the context's own type id: see
	// tokens.Template.LaterContextType.
	tpl.LaterContextType = 1
	return tpl, nil
}
