;;; harness.el --- test instrumentation around emacs-client/ in a real `emacs -nw'  -*- lexical-binding: t; -*-

;; Loaded by tests/e2e/test_emacs.py with `emacs -nw -q -l harness.el FILE'.  It sets the
;; package up as a user would (the README's own block) (eglot or lsp-mode starts the venv's `complex-edit lsp' for the
;; file) and reports what happens as JSON lines in $CE_TEST_OUT/events.jsonl:
;;   ready      the server manages the buffer
;;   changes    eglot has just sent typed changes to the server (didChange)
;;   done       `complex-edit-done-hook' ran: the answer, the buffer's text, the echo area
;;   progress   the server's progress reached the mode line: the selected window's mode line
;;   review     a review started, or went on to the next file: that file's hunks as shown
;;   state      `M-x ce-test-dump': the buffer's text and whether it is modified
;;   executed   `M-x ce-test-execute': eglot's own (blocking) `eglot-execute-command' answered
;;              (`M-x ce-test-execute-across': with otherFiles "edit", and the other files' buffers)
;;   doctor     `M-x ce-test-doctor': the checks `M-x complex-edit-doctor' shows for the buffer
;;   history    `M-x complex-edit-history' listed the edits the server answered
;;   window/logMessage, window/showMessage   the server's message (eglot only)
;; The keys themselves come from the test, through the terminal.

(require 'json)
;; Debian's Emacs compiles loaded packages to native code in the background: not in a test.
(setq native-comp-deferred-compilation nil
      warning-minimum-level :error)
(setq inhibit-startup-screen t
      make-backup-files nil
      auto-save-default nil
      create-lockfiles nil
      ;; (Git only: project.el finds the test's project, a git repository, through it)
      vc-handled-backends '(Git)
      ring-bell-function #'ignore)

;; The package is set up by a block of emacs-client/README.md, copied as a user would
;; (tests/e2e/emacs_terminal.py `readme_setup'); only the executable is this venv's.  An init
;; file runs once the installed packages are activated (Debian's elpa-* ones included); -q
;; skips that, so it is done here first, as Emacs does before it loads an init file.
(package-activate-all)
(load (getenv "CE_TEST_INIT") nil t)
(setq complex-edit-executable (getenv "CE_TEST_EXE"))
;; What a case sets on top of the README's block (settings, customizations), as elisp.
(when-let ((extra (getenv "CE_TEST_EVAL")))
  (eval (car (read-from-string extra)) t))

(defun ce-test-event (name &rest fields)
  "Append the event NAME with FIELDS (a plist) to events.jsonl."
  (let ((line (concat (json-encode `(:event ,name ,@fields)) "\n")))
    (write-region line nil (expand-file-name "events.jsonl" (getenv "CE_TEST_OUT")) t 'silent)))

(defun ce-test-text ()
  (save-restriction (widen) (buffer-substring-no-properties (point-min) (point-max))))

(defun ce-test-others ()
  "Every other buffer visiting a file: its name, text, and whether it is modified, managed."
  (vconcat
   (mapcar (lambda (buffer)
             (with-current-buffer buffer
               (list :name (buffer-file-name)
                     :text (ce-test-text)
                     :modified (if (buffer-modified-p) t :json-false)
                     :overlays (length (seq-filter (lambda (o) (overlay-get o 'complex-edit-live))
                                                   (overlays-in (point-min) (point-max))))
                     :managed (if (or (bound-and-true-p eglot--managed-mode)
                                      (bound-and-true-p lsp-mode))
                                  t :json-false))))
           (seq-filter (lambda (buffer)
                         (and (buffer-file-name buffer) (not (eq buffer (current-buffer)))))
                       (buffer-list)))))

(add-hook 'complex-edit-done-hook
          (lambda (answer)
            (ce-test-event "done" :answer answer :text (ce-test-text)
                           :echo (substring-no-properties (or (current-message) ""))
                           :others (ce-test-others))))

(defun ce-test-dump ()
  "Report the buffer's text."
  (interactive)
  (ce-test-event "state" :text (ce-test-text) :modified (if (buffer-modified-p) t :json-false)
                 :message (let ((text (with-current-buffer "*Messages*"
                                        (buffer-substring-no-properties
                                         (max (point-min) (- (point-max) 600)) (point-max)))))
                            text)
                 :coding (symbol-name buffer-file-coding-system)
                 :undo (if (listp buffer-undo-list) (length buffer-undo-list) -1)
                 :point (point)
                 :overlays (vconcat (ce-test-live-overlays))))

(defun ce-test-live-overlays ()
  "The live preview's overlays here: (:old TEXT-MARKED :new TEXT-SHOWN) each."
  (mapcar (lambda (o) (list :old (buffer-substring-no-properties (overlay-start o) (overlay-end o))
                            :new (substring-no-properties (or (overlay-get o 'after-string) ""))))
          (seq-filter (lambda (o) (overlay-get o 'complex-edit-live))
                      (save-restriction (widen) (overlays-in (point-min) (point-max))))))

(advice-add 'complex-edit-live-show :after
            (lambda (params &rest _)
              (let ((document (plist-get params :textDocument)))
                (ce-test-event "preview" :uri (plist-get document :uri)
                               :version (plist-get document :version)
                               :done (plist-get params :done)
                               :hunks (length (plist-get params :hunks))))))

(defun ce-test-execute (instruction)
  "Run performComplexEdit with INSTRUCTION through eglot's own, blocking, command."
  (interactive "sInstruction: ")
  (let ((answer (eglot-execute-command
                 (eglot-current-server) 'performComplexEdit
                 (vector (list :textDocument (eglot--TextDocumentIdentifier)
                               :prompt instruction)))))
    (ce-test-event "executed" :answer answer :text (ce-test-text))))

(defun ce-test-doctor ()
  "Report the checks of `complex-edit-doctor' for the current buffer."
  (interactive)
  (require 'complex-edit-doctor)
  (ce-test-event "doctor" :checks (vconcat (mapcar #'vconcat (complex-edit-doctor-checks)))))

(defun ce-test-execute-across (instruction)
  "`ce-test-execute' with otherFiles \"edit\"; also reports every other file's buffer."
  (interactive "sInstruction: ")
  (let ((answer
         (if (equal (getenv "CE_TEST_BACKEND") "lsp-mode")
             (lsp-request "workspace/executeCommand"
                          (list :command "performComplexEdit"
                                :arguments (vector (list :textDocument
                                                         (lsp--text-document-identifier)
                                                         :prompt instruction
                                                         :otherFiles "edit"))))
           (eglot-execute-command
            (eglot-current-server) 'performComplexEdit
            (vector (list :textDocument (eglot--TextDocumentIdentifier)
                          :prompt instruction :otherFiles "edit")))))
        (others (ce-test-others)))
    (ce-test-event "executed" :answer answer :text (ce-test-text) :others others)))

(defun ce-test-quit ()
  "Keep eglot's log of the messages in $CE_TEST_OUT/eglot-events.log and leave."
  (interactive)
  (when-let ((server (and (fboundp 'eglot-current-server) (eglot-current-server))))
    (with-current-buffer (jsonrpc-events-buffer server)
      (write-region nil nil (expand-file-name "eglot-events.log" (getenv "CE_TEST_OUT"))
                    nil 'silent)))
  (kill-emacs 0))

(advice-add 'complex-edit-progress :after
            (lambda (&rest _)
              (let ((window (selected-window)))
                (ce-test-event "progress" :mode_line
                               (substring-no-properties
                                (format-mode-line mode-line-format nil window
                                                  (window-buffer window)))))))

(advice-add 'complex-edit-review--open :after
            (lambda (&rest _)
              (when complex-edit--review  ; (not when the review was refused)
                (ce-test-event "review" :count (length (plist-get complex-edit--review :hunks))
                               :name (plist-get complex-edit--review :name)
                               :buffer (buffer-name)))))

(with-eval-after-load 'complex-edit-history
  (advice-add 'complex-edit-history--show :after
              (lambda (answer &rest _)
                (ce-test-event "history"
                               :entries (vconcat (complex-edit-history--entries answer))))))

(defun ce-test-soon (start)
  "Call START in the current buffer once Emacs is up (`eglot-ensure' waits for a command)."
  (run-with-timer 0 nil (lambda (buffer) (with-current-buffer buffer (funcall start)))
                  (current-buffer)))

(pcase (getenv "CE_TEST_BACKEND")
  ("lsp-mode"
   (setq lsp-session-file (expand-file-name "lsp-session" (getenv "CE_TEST_OUT"))
         lsp-auto-guess-root t
         lsp-enable-file-watchers nil
         lsp-keep-workspace-alive nil
         lsp-headerline-breadcrumb-enable nil
         lsp-modeline-code-actions-enable nil
         lsp-modeline-workspace-status-enable nil
         lsp-modeline-diagnostics-enable nil
         lsp-lens-enable nil
         lsp-enable-snippet nil
         lsp-log-io t)
   (require 'lsp-mode)
   (complex-edit-lsp-mode-register '(python-mode text-mode))
   (add-hook 'lsp-after-open-hook
             (lambda ()
               (when (complex-edit-lsp-mode-backend)
                 (ce-test-event "ready" :backend "lsp-mode"))))
   (add-hook 'find-file-hook (lambda () (ce-test-soon #'lsp))))
  (backend
   (require 'eglot)
   (if (equal backend "eglot-plain")    ; eglot's own server class: the package's left out
       (add-to-list 'eglot-server-programs
                    (cons '(python-mode text-mode) (complex-edit-program)))
     (complex-edit-eglot-register '(python-mode text-mode)))
   (advice-add 'eglot--signal-textDocument/didChange :around
               (lambda (send &rest args)
                 (let ((pending eglot--recent-changes))
                   (prog1 (apply send args)
                     (when pending
                       (ce-test-event "changes" :version eglot--versioned-identifier))))))
   (advice-add 'eglot-handle-notification :before
               (lambda (_server method &rest params)
                 (when (memq method '(window/logMessage window/showMessage))
                   (ce-test-event (symbol-name method) :message (plist-get params :message)))))
   (add-hook 'eglot-managed-mode-hook
             (lambda ()
               (when (and eglot--managed-mode (complex-edit-eglot-backend))
                 (ce-test-event "ready" :backend "eglot"))))
   ;; (a file visited later, e.g. one a server edit visits, joins the project's server, as
   ;; `eglot-ensure' does: calling `eglot' again would restart it)
   (add-hook 'find-file-hook
             (lambda ()
               (ce-test-soon (lambda ()
                               (unless (eglot-current-server)
                                 (apply #'eglot (eglot--guess-contact)))))))))

;;; harness.el ends here
