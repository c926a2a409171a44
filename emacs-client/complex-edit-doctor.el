;;; complex-edit-doctor.el --- M-x complex-edit-doctor: is everything in place?  -*- lexical-binding: t; -*-

;;; Commentary:

;; Like Neovim's `:checkhealth complex_edit': Emacs, the LSP client, the executable (and its
;; version), the key of the chosen provider (names only: no value is ever shown), and the
;; server of the current buffer.  The report goes to the *complex-edit-doctor* buffer.

;;; Code:

(require 'cl-lib)
(require 'json)
(require 'complex-edit)

(declare-function complex-edit-eglot-server-p "complex-edit-eglot" (object))

(defconst complex-edit-doctor--version-timeout 5 "Seconds `--version' may take.")

(defconst complex-edit-doctor--providers
  '(("gemini" ("GEMINI_API_KEY" "GOOGLE_API_KEY") "GOOGLE_GEMINI_BASE_URL" t)
    ("openai" ("OPENAI_API_KEY") "OPENAI_BASE_URL" t)
    ("anthropic" ("ANTHROPIC_API_KEY" "ANTHROPIC_AUTH_TOKEN") "ANTHROPIC_BASE_URL" t))
  "Each provider: its key variables, its base-URL variable, and whether
a base URL makes the key optional.")

(defun complex-edit-doctor--set-p (name)
  "Non-nil when the environment variable NAME is set and not empty."
  (let ((value (getenv name))) (and value (not (string-empty-p value)))))

(defun complex-edit-doctor--version (program)
  "The first line PROGRAM --version prints, or a list (ERROR TEXT)."
  (with-temp-buffer
    (let* ((buffer (current-buffer))
           (process (make-process :name "complex-edit-version" :buffer buffer
                                  :command (list program "--version")
                                  :connection-type 'pipe :noquery t :stderr buffer))
           (deadline (+ (float-time) complex-edit-doctor--version-timeout)))
      (while (and (process-live-p process) (< (float-time) deadline))
        (accept-process-output process 0.1))
      (let ((line (string-trim (car (split-string (buffer-string) "\n")))))
        (cond ((process-live-p process)
               (delete-process process)
               (list 'error (format "did not answer within %d s"
                                    complex-edit-doctor--version-timeout)))
              ((zerop (process-exit-status process)) line)
              (t (list 'error (format "exited with code %d: %s"
                                      (process-exit-status process) line))))))))

(defun complex-edit-doctor--executable ()
  "Checks of `complex-edit-executable'."
  (let ((found (executable-find (car (complex-edit-program)))))
    (if (not found)
        `((error ,(format "`%s' is not an executable on exec-path" complex-edit-executable)
                 "Set complex-edit-executable to /path/to/.venv/bin/complex-edit, or install \
the server with `pipx install .'"))
      (let ((version (complex-edit-doctor--version found)))
        `((ok ,(format "Executable %s" found))
          ,(if (stringp version)
               `(ok ,(format "Version: %s" version))
             `(warn ,(format "`%s --version' %s" found (cadr version)))))))))

(defun complex-edit-doctor--keys ()
  "Checks of the chosen provider's key (variable names only)."
  (let* ((provider (downcase (or (plist-get complex-edit-settings :provider)
                                 (getenv "COMPLEX_EDIT_PROVIDER") "gemini")))
         (spec (assoc provider complex-edit-doctor--providers)))
    (if (null spec)
        `((error ,(format "Unknown provider %S" provider)
                 "Use gemini, openai or anthropic; every edit fails with reason config."))
      (cl-destructuring-bind (_ keys base-url optional) spec
        (let ((set (cl-remove-if-not #'complex-edit-doctor--set-p keys))
              (custom-url (or (plist-get complex-edit-settings :baseUrl)
                              (complex-edit-doctor--set-p "COMPLEX_EDIT_BASE_URL")
                              (complex-edit-doctor--set-p base-url))))
          `((info ,(format "Provider: %s" provider))
            ,@(when custom-url
                `((info ,(format "A base URL is set (%s or baseUrl): requests go to a custom \
endpoint" base-url))))
            ,(cond (set `(ok ,(format "API key set: %s" (string-join set ", "))))
                   ((and (equal provider "gemini")
                         (member (downcase (or (getenv "GOOGLE_GENAI_USE_VERTEXAI") ""))
                                 '("1" "true" "yes")))
                    '(ok "Vertex AI selected (GOOGLE_GENAI_USE_VERTEXAI); no API key needed"))
                   ((and custom-url optional)
                    `(info ,(format "No %s: not needed with a base URL" (car keys))))
                   (t `(warn ,(format "No API key: %s is not set" (string-join keys " or "))
                             "Set it in the environment Emacs starts with (setenv works \
before the server starts); without a key every edit fails with reason config.")))))))))

(defun complex-edit-doctor--clients ()
  "Checks of the LSP clients and of the current buffer's server."
  (let ((backend (run-hook-with-args-until-success 'complex-edit--backend-finders)))
    `(,(if (or (featurep 'eglot) (locate-library "eglot"))
           `(ok ,(format "eglot available%s" (if (featurep 'eglot) " (loaded)" "")))
         '(info "eglot not found (built into Emacs 29+; `apt install elpa-eglot' or ELPA)"))
      ,(if (or (featurep 'lsp-mode) (locate-library "lsp-mode"))
           `(ok ,(format "lsp-mode available%s" (if (featurep 'lsp-mode) " (loaded)" "")))
         '(info "lsp-mode not found (optional)"))
      ,(cond
        ((null backend)
         '(warn "No complex-edit server in this buffer"
                "Register it (complex-edit-eglot-register or complex-edit-lsp-mode-register) \
and start it with M-x eglot or M-x lsp; see the README."))
        ((and (eq (plist-get backend :name) 'eglot)
              (not (complex-edit-eglot-server-p (plist-get backend :connection))))
         '(warn "The eglot server here is not of class complex-edit-eglot-server"
                "Register it with complex-edit-eglot-register: without it there is no \
progress, no undo boundary and a Proceed? prompt."))
        (t `(ok ,(format "Server running for this buffer through %s"
                         (plist-get backend :name))))))))

(defun complex-edit-doctor-checks ()
  "All checks, each (LEVEL TEXT [ADVICE]) with LEVEL ok, info, warn or error."
  `((info ,(format "Emacs %s" emacs-version))
    ,@(unless (>= emacs-major-version 28) '((error "Emacs 28 or newer is needed")))
    ,@(complex-edit-doctor--clients)
    ,@(complex-edit-doctor--executable)
    ,@(complex-edit-doctor--keys)))

;;;###autoload
(defun complex-edit-doctor ()
  "Check the executable, the API key variables and the server.
The report goes to the *complex-edit-doctor* buffer."
  (interactive)
  (let ((checks (complex-edit-doctor-checks)))
    (with-current-buffer (get-buffer-create "*complex-edit-doctor*")
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert "complex-edit doctor\n\n")
        (pcase-dolist (`(,level ,text ,advice) checks)
          (insert (propertize (format "%-6s" (upcase (symbol-name level)))
                              'face (pcase level ('ok 'success) ('warn 'warning)
                                           ('error 'error) (_ 'shadow)))
                  text "\n")
          (when advice (insert "      " advice "\n"))))
      (special-mode)
      (goto-char (point-min))
      (display-buffer (current-buffer)))
    (let ((problems (cl-count-if (lambda (check) (memq (car check) '(warn error))) checks)))
      (message "complex-edit doctor: %s" (if (zerop problems) "all good"
                                           (format "%d problem(s); see *complex-edit-doctor*"
                                                   problems))))
    checks))

(provide 'complex-edit-doctor)

;;; complex-edit-doctor.el ends here
